/**
 * AttachmentService: attachments' metadata (Gitea's routers/api/v1/repo/release_attachment.go, issue_attachment.go,
 * issue_comment_attachment.go; who may do what is domain/attachments.ts). The gateway stores the bytes before
 * CreateAttachment and streams them after OpenAttachment; a deletion removes the row, and the bytes once the
 * deleting transaction committed (maintenance/purge-attachments.ts).
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Attachment, AttachmentParent, AttachmentServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import { type AsyncServiceOf, CairnError, Code, isCairnError } from '@cairn/rpc';
import { AccessMode, type RepoPermission, canRead, unitMode, viewerFromActor } from '../domain/access';
import {
  type AttachmentOwner,
  attachmentChangeDenied,
  attachmentUnit,
  checkBatchSize,
  checkAttachmentName,
  mayChangeIssueAttachments,
  ownerOfParent,
  writesUnit,
} from '../domain/attachments';
import { purgeAttachmentsNow } from '../maintenance/purge-attachments';
import { claimAttachmentUpload, reserveAttachmentUpload } from '../store/attachment-purges';
import {
  type StoredAttachment,
  countDownload,
  deleteAttachment,
  findAttachment,
  findAttachmentByUuid,
  insertAttachment,
  listAttachments,
  listAttachmentsOf,
  releaseDraftState,
  renameAttachment,
} from '../store/attachments';
import type { RepoRow } from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, permissionsFor, requireAccess } from './repo-access';
import { findRepositories } from '../store/repositories';

function checkUuid(uuid: string): string {
  if (!UUID.test(uuid)) throw CairnError.invalid('attachment uuid is not a uuid', { reason: 'invalid_attachment_uuid' });
  return uuid.toLowerCase();
}

export function toAttachmentMessage(attachment: StoredAttachment): Attachment {
  const { owner } = attachment;
  return {
    id: attachment.id,
    uuid: attachment.uuid,
    repoId: attachment.repoId,
    releaseId: owner.kind === 'release' ? owner.releaseId : 0,
    issueId: owner.kind === 'release' ? 0 : owner.issueId,
    commentId: owner.kind === 'comment' ? owner.commentId : 0,
    uploaderId: attachment.uploaderId,
    name: attachment.name,
    size: attachment.size,
    downloadCount: attachment.downloadCount,
    created: attachment.created,
  };
}

function attachmentNotFound(): CairnError {
  return CairnError.notFound('attachment not found', { reason: 'attachment_not_found' });
}

function releaseNotFound(): CairnError {
  return CairnError.notFound('release not found', { reason: 'release_not_found' });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createAttachmentService(context: ReposContext): AsyncServiceOf<typeof AttachmentServiceService> {
  const { db } = context;

  /** A release's visibility: NOT_FOUND when none in the repository, or a draft and the viewer does not write releases. */
  async function checkRelease(repo: RepoRow, permission: RepoPermission, releaseId: number): Promise<void> {
    const release = await guard(() => releaseDraftState(db.pool, repo.id, releaseId));
    if (release === undefined || (release.isDraft && !writesUnit(permission, attachmentUnit({ kind: 'release', releaseId })))) throw releaseNotFound();
  }

  /** The repository and the parent, once the viewer may read the parent's attachments. */
  async function forReading(viewer: Actor | undefined, repoId: number, parent: AttachmentParent | undefined) {
    const owner = ownerOfParent(parent);
    const { repo, permission } = await loadRepoForViewer(context, viewer, repoId);
    requireAccess(permission, { unit: attachmentUnit(owner), mode: 'read' }, repo);
    if (owner.kind === 'release') await checkRelease(repo, permission, owner.releaseId);
    return { repo, owner };
  }

  /** The repository and the parent, once the actor may change the parent's attachments. */
  async function forWriting(actor: Actor | undefined, repoId: number, parent: AttachmentParent | undefined) {
    const owner = ownerOfParent(parent);
    const viewer = viewerFromActor(actor);
    const { repo, permission } = await loadRepoForViewer(context, viewer, repoId);
    const unit = attachmentUnit(owner);
    if (owner.kind === 'release') {
      requireAccess(permission, { unit, mode: 'write' }, repo);
      await checkRelease(repo, permission, owner.releaseId);
    } else {
      requireAccess(permission, { unit, mode: 'read', archived: 'refuse' }, repo);
      if (!mayChangeIssueAttachments(viewer, owner, parent?.posterId ?? 0, permission)) throw attachmentChangeDenied(owner);
    }
    return { repo, owner, viewer };
  }

  async function existing(repoId: number, owner: AttachmentOwner, id: number): Promise<StoredAttachment> {
    const attachment = await guard(() => findAttachment(db.pool, repoId, owner, id));
    if (attachment === undefined) throw attachmentNotFound();
    return attachment;
  }

  return {
    async reserveAttachment(request) {
      const uuid = checkUuid(request.uuid);
      await guard(() => reserveAttachmentUpload(db.pool, uuid));
      return {};
    },

    async createAttachment(request) {
      const { repo, owner, viewer } = await forWriting(request.actor, request.repoId, request.parent);
      const uuid = checkUuid(request.uuid);
      const name = checkAttachmentName(request.name);
      const attachment = await guard(() =>
        db.pool.transaction(async (tx) => {
          // The reservation goes with the record: from now on only a deletion removes these bytes.
          if (!(await claimAttachmentUpload(tx, uuid))) {
            throw CairnError.precondition('the upload was not reserved, or took longer than its reservation', { reason: 'attachment_not_reserved' });
          }
          return insertAttachment(tx, { uuid, repoId: repo.id, owner, uploaderId: viewer.id, name, size: request.size });
        }),
      );
      return { attachment: toAttachmentMessage(attachment) };
    },

    async listAttachments(request) {
      const { repo, owner } = await forReading(request.viewer, request.repoId, request.parent);
      const attachments = await guard(() => listAttachments(db.pool, repo.id, owner));
      return { attachments: attachments.map(toAttachmentMessage) };
    },

    async getAttachment(request) {
      const { repo, owner } = await forReading(request.viewer, request.repoId, request.parent);
      return { attachment: toAttachmentMessage(await existing(repo.id, owner, request.id)) };
    },

    async updateAttachment(request) {
      const { repo, owner } = await forWriting(request.actor, request.repoId, request.parent);
      const name = checkAttachmentName(request.name);
      const attachment = await existing(repo.id, owner, request.id);
      return { attachment: toAttachmentMessage(await guard(() => renameAttachment(db.pool, attachment.id, name))) };
    },

    async deleteAttachment(request) {
      const { repo, owner } = await forWriting(request.actor, request.repoId, request.parent);
      const attachment = await existing(repo.id, owner, request.id);
      await guard(() => db.pool.transaction((tx) => deleteAttachment(tx, attachment.id)));
      await purgeAttachmentsNow(context);
      return {};
    },

    async openAttachment(request) {
      if (!UUID.test(request.uuid)) throw attachmentNotFound();
      const found = await guard(() => findAttachmentByUuid(db.pool, request.uuid.toLowerCase()));
      if (found === undefined) throw attachmentNotFound();
      try {
        // Gitea's ServeAttachment: the repository's unit the attachment belongs to decides; anything hidden is 404.
        const { repo, permission } = await loadRepoForViewer(context, request.viewer, found.repoId);
        requireAccess(permission, { unit: attachmentUnit(found.owner), mode: 'read' }, repo);
        if (found.owner.kind === 'release') await checkRelease(repo, permission, found.owner.releaseId);
      } catch (error) {
        if (isCairnError(error) && error.code === Code.NOT_FOUND) throw attachmentNotFound();
        throw error;
      }
      return { attachment: toAttachmentMessage(request.noCount ? found : await guard(() => countDownload(db.pool, found.id))) };
    },

    async batchListAttachments(request) {
      checkBatchSize(request.issueIds.length + request.commentIds.length);
      const attachments = await guard(() => listAttachmentsOf(db.pool, { issueIds: request.issueIds, commentIds: request.commentIds }));
      if (attachments.length === 0) return { attachments: [] };
      const repos = await guard(() => findRepositories(db.pool, [...new Set(attachments.map((attachment) => attachment.repoId))]));
      const permissions = await permissionsFor(context, viewerFromActor(request.viewer), repos);
      const readable = (attachment: StoredAttachment) => {
        const permission = permissions.get(attachment.repoId);
        return permission !== undefined && canRead(permission) && unitMode(permission, attachmentUnit(attachment.owner)) >= AccessMode.Read;
      };
      return { attachments: attachments.filter(readable).map(toAttachmentMessage) };
    },
  };
}
