/**
 * repos' attachments → Gitea's `Attachment` (services/convert/attachment.go `ToAPIAttachment`): the download link
 * is the web route `<ROOT_URL>attachments/<uuid>` (routers/web/repo/attachment.go), served by the gateway.
 */
import { goTime } from '@cairn/http';
import type { Attachment } from '@cairn/proto/cairn/repos/v1/releases_service';

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
