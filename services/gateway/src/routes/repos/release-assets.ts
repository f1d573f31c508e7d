/**
 * Release assets (routers/api/v1/repo/release_attachment.go): `/repos/{owner}/{repo}/releases/{id}/assets[/{attachment_id}]`.
 * Readers of the releases unit list and get them (a draft's only its writers: repos answers 404), its writers
 * upload (multipart `attachment` or a raw body with `?name=`: 201), rename (201, as Gitea) and delete them (204).
 * Uploading while `[attachment] ENABLED` is false is 404, as in Gitea; the other operations stay.
 */
import { HttpError } from '@cairn/http';
import type { AttachmentParent } from '@cairn/proto/cairn/repos/v1/releases_service';
import { UNIT_RELEASES } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import type { ApiContext } from '../../api/types';
import {
  type EditAttachmentBody,
  EditAttachmentOptions,
  createAttachment,
  deleteAttachment,
  editAttachment,
  getAttachment,
  listAttachments,
} from '../../attachments/handlers';

function releaseOf<B>(ctx: ApiContext<B>): AttachmentParent {
  return { releaseId: pathInt64(ctx.params.id), issueId: 0, commentId: 0, isPull: false, posterId: 0 };
}

export function registerReleaseAssetRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_RELEASES, mode: 'read' } } as const;
  // Refused before any byte is stored: archived repositories (423) as repos would, after the upload, too.
  const writer = { scope: 'repository', auth: 'required', repo: { unit: UNIT_RELEASES, mode: 'write', archived: 'refuse' } } as const;
  const path = '/repos/{owner}/{repo}/releases/{id}/assets';

  api.route({ ...reader, method: 'get', path, operationId: 'repoListReleaseAttachments', handler: (ctx) => listAttachments(ctx, releaseOf(ctx)) });

  api.route({
    ...writer,
    method: 'post',
    path,
    operationId: 'repoCreateReleaseAttachment',
    streamBody: true,
    handler: async (ctx) => {
      if (!ctx.services.config.attachment.enabled) throw HttpError.notFound('Attachment is not enabled');
      return createAttachment(ctx, releaseOf(ctx));
    },
  });

  const one = `${path}/{attachment_id}`;
  api.route({ ...reader, method: 'get', path: one, operationId: 'repoGetReleaseAttachment', handler: (ctx) => getAttachment(ctx, releaseOf(ctx)) });
  api.route<EditAttachmentBody>({
    ...writer,
    method: 'patch',
    path: one,
    operationId: 'repoEditReleaseAttachment',
    body: EditAttachmentOptions,
    handler: (ctx) => editAttachment(ctx, releaseOf(ctx)),
  });
  api.route({ ...writer, method: 'delete', path: one, operationId: 'repoDeleteReleaseAttachment', handler: (ctx) => deleteAttachment(ctx, releaseOf(ctx)) });
}
