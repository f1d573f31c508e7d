/** What a hook type turns a Gitea payload into (Gitea's services/webhook/<type>.go `newXxxRequest`). */

/** A Gitea webhook payload (modules/structs/hook.go), as JSON. */
export type GiteaPayload = { readonly [key: string]: unknown };

/** The hook as its type's renderer needs it. */
export interface HookTarget {
  type: string;
  url: string;
  httpMethod: string;
  contentType: 'json' | 'form';
  /** The type's own settings (slack channel, matrix room_id, …). */
  meta: Readonly<Record<string, string>>;
}

/** One event's payload as delivered. */
export interface DeliveryContent {
  /** X-Gitea-Event: the coarse event name (issues, pull_request, issue_comment, push, …). */
  event: string;
  /** X-Gitea-Event-Type: the fine type (issue_label, pull_request_sync, …). */
  eventType: string;
  payload: GiteaPayload;
}

/** The request a delivery sends (before Cairn's headers and signatures, which are computed over `body`). */
export interface RenderedRequest {
  url: string;
  method: string;
  /** The Content-Type header. */
  contentType: string;
  body: string;
  /** Headers the type adds (e.g. matrix's Authorization). */
  headers?: Readonly<Record<string, string>>;
}

export type Renderer = (hook: HookTarget, content: DeliveryContent) => RenderedRequest;
