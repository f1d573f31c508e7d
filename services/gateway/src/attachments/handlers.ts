/**
 * The five attachment operations every parent has (release assets, issue and comment assets: Gitea's
 * routers/api/v1/repo/release_attachment.go, issue_attachment.go, issue_comment_attachment.go), for the parent
 * the route found. repos decides who may see and change them; the gateway moves the bytes.
 */
import type { CairnConfig } from '@cairn/config';
import { go, goStruct, HttpError } from '@cairn/http';
import type { Attachment, AttachmentParent } from '@cairn/proto/cairn/repos/v1/releases_service';
import { attachmentKey } from '@cairn/storage';
import { toApiAttachment } from '@cairn/gitea-json';
import { pathInt64 } from '../api/path-int';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../api/types';
import { forbiddenType, forbiddenTypeMessage } from './allowed-types';
import { receiveUpload } from './upload';

/** Gitea's `api.EditAttachmentOptions`. */
export const EditAttachmentOptions = goStruct('EditAttachmentOptions', {
  name: go.string('Name'),
});
export type EditAttachmentBody = { name: string };

function attachmentOf(reply: { attachment?: Attachment }, what: string): Attachment {
  if (reply.attachment === undefined) throw new Error(`${what} answered without the attachment`);
  return reply.attachment;
}

export async function listAttachments<B>(ctx: ApiContext<B>, parent: AttachmentParent): Promise<ApiReply> {
  const { attachments } = await ctx.services.clients.attachments.listAttachments({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id, parent });
  return json(200, attachments.map((attachment) => toApiAttachment(attachment, ctx.services.config.server.rootUrl)));
}

export async function getAttachment<B>(ctx: ApiContext<B>, parent: AttachmentParent): Promise<ApiReply> {
  const reply = await ctx.services.clients.attachments.getAttachment({
    viewer: ctx.viewer,
    repoId: repoOf(ctx).repository.id,
    parent,
    id: pathInt64(ctx.params.attachment_id),
  });
  return json(200, toApiAttachment(attachmentOf(reply, 'GetAttachment'), ctx.services.config.server.rootUrl));
}

/**
 * What an attachment may be: release assets follow `[repository.release] ALLOWED_TYPES` (anything by default), issue
 * and comment attachments `[attachment] ALLOWED_TYPES` (Gitea's routers/api/v1/repo/release_attachment.go and
 * issue_attachment.go).
 */
function allowedTypesOf(config: CairnConfig, parent: AttachmentParent): string {
  return parent.releaseId > 0 ? config.repository.release.allowedTypes : config.attachment.allowedTypes;
}

/**
 * Stores the upload, then records it; bytes whose recording fails (the parent went, the caller may not) are
 * removed again. 201 with the attachment.
 */
export async function createAttachment<B>(ctx: ApiContext<B>, parent: AttachmentParent): Promise<ApiReply> {
  const { services } = ctx;
  if (ctx.upload === undefined) throw new Error('an upload route needs streamBody');
  const { config, objects, logger } = services;
  const stored = await receiveUpload(ctx.upload, ctx.query, objects, {
    allowedTypes: allowedTypesOf(config, parent),
    maxSizeMiB: config.attachment.maxSize,
    reserve: async (uuid) => void (await services.clients.attachments.reserveAttachment({ actor: ctx.viewer, uuid })),
  });
  try {
    const reply = await services.clients.attachments.createAttachment({
      actor: ctx.viewer,
      repoId: repoOf(ctx).repository.id,
      parent,
      uuid: stored.uuid,
      name: stored.name,
      size: stored.size,
    });
    return json(201, toApiAttachment(attachmentOf(reply, 'CreateAttachment'), config.server.rootUrl));
  } catch (error) {
    await objects.delete(attachmentKey(stored.uuid)).catch((cause: unknown) => logger.warn({ err: cause, attachment_uuid: stored.uuid }, 'could not remove unrecorded attachment bytes'));
    throw error;
  }
}

/** Renames (Gitea keeps the name when none is given); a name ALLOWED_TYPES refuses is 422. Gitea answers 201. */
export async function editAttachment(ctx: ApiContext<EditAttachmentBody>, parent: AttachmentParent): Promise<ApiReply> {
  const { config } = ctx.services;
  const name = ctx.body.name;
  if (name === '') return { ...(await getAttachment(ctx, parent)), status: 201 };
  // Gitea's UpdateAttachment verifies the name alone (no bytes: sniffed as text).
  const forbidden = forbiddenType(new Uint8Array(), name, allowedTypesOf(config, parent));
  if (forbidden !== undefined) throw HttpError.unprocessable(forbiddenTypeMessage(forbidden));
  const reply = await ctx.services.clients.attachments.updateAttachment({
    actor: ctx.viewer,
    repoId: repoOf(ctx).repository.id,
    parent,
    id: pathInt64(ctx.params.attachment_id),
    name,
  });
  return json(201, toApiAttachment(attachmentOf(reply, 'UpdateAttachment'), config.server.rootUrl));
}

export async function deleteAttachment<B>(ctx: ApiContext<B>, parent: AttachmentParent): Promise<ApiReply> {
  await ctx.services.clients.attachments.deleteAttachment({
    actor: ctx.viewer,
    repoId: repoOf(ctx).repository.id,
    parent,
    id: pathInt64(ctx.params.attachment_id),
  });
  return noContent();
}
