/**
 * repos' attachments → Gitea's `Attachment` (services/convert/attachment.go `ToAPIAttachment`): the download link
 * is the web route `<ROOT_URL>attachments/<uuid>` (routers/web/repo/attachment.go), served by the gateway.
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Attachment } from '@cairn/proto/cairn/repos/v1/releases_service';
import type { ConvertWith } from './services';

/** Gitea's `Attachment`. */
export interface ApiAttachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  created_at: string;
  uuid: string;
  browser_download_url: string;
}

/** `rootUrl` is `[server] ROOT_URL`, which ends with `/`. */
export function toApiAttachment(attachment: Attachment, rootUrl: string): ApiAttachment {
  return {
    id: attachment.id,
    name: attachment.name,
    size: attachment.size,
    download_count: attachment.downloadCount,
    created_at: goTime(attachment.created),
    uuid: attachment.uuid,
    browser_download_url: `${rootUrl}attachments/${attachment.uuid}`,
  };
}

/** A page's attachments by parent: issues' own by issue id, comments' by comment id. */
export interface AttachmentsByParent {
  ofIssue(issueId: number): ApiAttachment[];
  ofComment(commentId: number): ApiAttachment[];
}

/** The `assets` of a page of issues and comments, in one call (those the viewer may not read are left out). */
export async function attachmentsByParent(
  services: ConvertWith<'attachments'>,
  viewer: Actor | undefined,
  parents: { issueIds: readonly number[]; commentIds: readonly number[] },
): Promise<AttachmentsByParent> {
  const byIssue = new Map<number, ApiAttachment[]>();
  const byComment = new Map<number, ApiAttachment[]>();
  if (parents.issueIds.length + parents.commentIds.length > 0) {
    const { attachments } = await services.clients.attachments.batchListAttachments({ viewer, issueIds: [...parents.issueIds], commentIds: [...parents.commentIds] });
    for (const attachment of attachments) {
      const [map, key] = attachment.commentId > 0 ? [byComment, attachment.commentId] : [byIssue, attachment.issueId];
      map.set(key, [...(map.get(key) ?? []), toApiAttachment(attachment, services.config.server.rootUrl)]);
    }
  }
  return { ofIssue: (id) => byIssue.get(id) ?? [], ofComment: (id) => byComment.get(id) ?? [] };
}
