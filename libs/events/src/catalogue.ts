/**
 * Every event type of the stream: Gitea's fine webhook event types (modules/webhook/type.go HookEventType, the
 * `X-Gitea-Event-Type` value), which are also the last token of the subject. The hooks service's HookEventType is
 * this type.
 */
export const EVENT_TYPES = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
  'pull_request_sync',
  'pull_request_review_request',
  'wiki',
  'repository',
  'release',
  'status',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
