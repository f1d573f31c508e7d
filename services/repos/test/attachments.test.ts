/**
 * AttachmentService over gRPC on a real database (domain/attachments.ts): who may read and change release, issue
 * and comment attachments, downloads by uuid, and the purger removing the bytes only after the deleting
 * transaction committed (retried when the object store fails, never when the deletion rolled back).
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql, z } from '@cairn/db';
import type { AttachmentParent } from '@cairn/proto/cairn/repos/v1/releases_service';
import { Code } from '@cairn/rpc';
import { attachmentKey } from '@cairn/storage';
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Comment, Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { commentDeletedHandler, issueDeletedHandler } from '../src/events/issues-consumer';
import { purgeDueAttachments } from '../src/maintenance/purge-attachments';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

const ALL_UNITS = ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases'];

describe('AttachmentService', () => {
  let h: ReposHarness;
  let owner: number;
  let writer: number;
  let reader: number;
  let stranger: number;
  let repoId: number;
  let privateRepoId: number;
  let noPullsRepoId: number;
  let releaseId: number;
  let draftId: number;
  let privateReleaseId: number;

  const insertRelease = (repo: number, tag: string, draft = false) =>
    h.db.pool.oneFirst(sql.type(z.object({ id: z.number() }))`
      INSERT INTO releases (repo_id, tag_name, publisher_id, is_draft) VALUES (${repo}, ${tag}, ${owner}, ${draft}) RETURNING id`);

  beforeAll(async () => {
    h = await startReposHarness();
    owner = h.accounts.addUser('owner');
    writer = h.accounts.addUser('writer');
    reader = h.accounts.addUser('reader');
    stranger = h.accounts.addUser('stranger');
    repoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'app', units: ALL_UNITS });
    privateRepoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'secret', isPrivate: true, units: ALL_UNITS });
    noPullsRepoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'nopulls', units: ['repo.code', 'repo.issues', 'repo.releases'] });
    await h.addCollaborator(repoId, writer, 'write');
    await h.addCollaborator(repoId, reader, 'read');
    await h.addCollaborator(noPullsRepoId, writer, 'write');
    releaseId = await insertRelease(repoId, 'v1');
    draftId = await insertRelease(repoId, 'v2-draft', true);
    privateReleaseId = await insertRelease(privateRepoId, 'v1');
  });

  afterAll(async () => {
    await h?.stop();
  });

  /** Stores bytes as the gateway does, then records them. */
  const upload = async (actorId: number, repo: number, parent: Partial<AttachmentParent>, name = 'file.txt') => {
    const uuid = randomUUID();
    await h.attachments.reserveAttachment({ actor: h.accounts.actor(actorId), uuid });
    await h.objects.put(attachmentKey(uuid), Readable.from([Buffer.from(`bytes of ${name}`)]));
    const { attachment } = await h.attachments.createAttachment({
      actor: h.accounts.actor(actorId),
      repoId: repo,
      parent: { releaseId: 0, issueId: 0, commentId: 0, isPull: false, posterId: 0, ...parent },
      uuid,
      name,
      size: 9 + name.length,
    });
    if (attachment === undefined) throw new Error('no attachment');
    return attachment;
  };
  const parentOf = (parent: Partial<AttachmentParent>): AttachmentParent => ({ releaseId: 0, issueId: 0, commentId: 0, isPull: false, posterId: 0, ...parent });
  const list = (viewerId: number | undefined, repo: number, parent: Partial<AttachmentParent>) =>
    h.attachments.listAttachments({ viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId), repoId: repo, parent: parentOf(parent) });

  describe('release attachments', () => {
    it('lets release writers add, rename and delete them, and readers (anonymous included) list them', async () => {
      const added = await upload(writer, repoId, { releaseId }, 'app.zip');
      expect(added).toMatchObject({ repoId, releaseId, issueId: 0, uploaderId: writer, name: 'app.zip', downloadCount: 0 });
      expect((await list(undefined, repoId, { releaseId })).attachments.map((a) => a.id)).toEqual([added.id]);
      expect((await list(reader, repoId, { releaseId })).attachments).toHaveLength(1);
      const renamed = await h.attachments.updateAttachment({ actor: h.accounts.actor(writer), repoId, parent: parentOf({ releaseId }), id: added.id, name: 'app-1.zip' });
      expect(renamed.attachment?.name).toBe('app-1.zip');
      await h.attachments.deleteAttachment({ actor: h.accounts.actor(owner), repoId, parent: parentOf({ releaseId }), id: added.id });
      expect((await list(reader, repoId, { releaseId })).attachments).toEqual([]);
      expect(await h.objects.stat(attachmentKey(added.uuid))).toBeUndefined();
    });

    it('refuses readers (PERMISSION_DENIED) and hides private repositories and drafts (NOT_FOUND)', async () => {
      await expect(upload(reader, repoId, { releaseId })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      await expect(list(stranger, privateRepoId, { releaseId: privateReleaseId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(upload(stranger, privateRepoId, { releaseId: privateReleaseId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      const draft = await upload(writer, repoId, { releaseId: draftId });
      await expect(list(reader, repoId, { releaseId: draftId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(h.attachments.openAttachment({ viewer: h.accounts.actor(reader), uuid: draft.uuid, noCount: false })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      expect((await list(writer, repoId, { releaseId: draftId })).attachments).toHaveLength(1);
    });

    it('answers NOT_FOUND for a release of another repository and an attachment of another parent', async () => {
      await expect(upload(owner, repoId, { releaseId: privateReleaseId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      const added = await upload(writer, repoId, { releaseId });
      await expect(
        h.attachments.getAttachment({ viewer: h.accounts.actor(reader), repoId, parent: parentOf({ issueId: 1 }), id: added.id }),
      ).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(
        h.attachments.getAttachment({ viewer: h.accounts.actor(reader), repoId, parent: parentOf({ releaseId }), id: added.id }),
      ).resolves.toMatchObject({ attachment: { id: added.id } });
    });
  });

  describe('issue and comment attachments', () => {
    it('lets an issue’s poster (a mere reader) and unit writers change its attachments, and no one else', async () => {
      const own = await upload(reader, repoId, { issueId: 7, posterId: reader });
      expect(own).toMatchObject({ issueId: 7, commentId: 0, uploaderId: reader });
      await expect(upload(stranger, repoId, { issueId: 7, posterId: reader })).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should have permission to write issue',
      });
      await upload(writer, repoId, { issueId: 7, posterId: reader });
      expect((await list(stranger, repoId, { issueId: 7 })).attachments.map((a) => a.uploaderId)).toEqual([reader, writer]);
      await expect(
        h.attachments.deleteAttachment({ actor: h.accounts.actor(stranger), repoId, parent: parentOf({ issueId: 7, posterId: reader }), id: own.id }),
      ).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    });

    it('lets a comment’s poster who writes issues, and repository admins who do, change its attachments (Gitea’s canUserWriteIssueCommentAttachment)', async () => {
      const denied = { code: Code.PERMISSION_DENIED, message: 'user should have permission to edit comment' };
      // A poster who only reads, and a writer who did not post it, may not.
      await expect(upload(reader, repoId, { issueId: 7, commentId: 3, posterId: reader })).rejects.toMatchObject(denied);
      await expect(upload(writer, repoId, { issueId: 7, commentId: 3, posterId: reader })).rejects.toMatchObject(denied);
      const byPoster = await upload(writer, repoId, { issueId: 7, commentId: 4, posterId: writer });
      const byAdmin = await upload(owner, repoId, { issueId: 7, commentId: 4, posterId: writer });
      // The issue's own attachments do not include its comments'.
      expect((await list(stranger, repoId, { issueId: 7, commentId: 4 })).attachments.map((a) => a.id)).toEqual([byPoster.id, byAdmin.id]);
      expect((await list(stranger, repoId, { issueId: 7 })).attachments.map((a) => a.id)).not.toContain(byPoster.id);
    });

    it('goes with the pulls unit for a pull request', async () => {
      await expect(upload(writer, noPullsRepoId, { issueId: 1, isPull: true, posterId: writer })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      const onIssue = await upload(writer, noPullsRepoId, { issueId: 2, posterId: writer });
      expect(onIssue.issueId).toBe(2);
    });
  });

  describe('BatchListAttachments', () => {
    it('answers a page’s issue and comment attachments, leaving out what the viewer may not read', async () => {
      const pub = await upload(owner, repoId, { issueId: 60, posterId: owner });
      const pubComment = await upload(owner, repoId, { issueId: 60, commentId: 61, posterId: owner });
      const hidden = await upload(owner, privateRepoId, { issueId: 70, posterId: owner });
      const ask = (viewerId: number | undefined) =>
        h.attachments.batchListAttachments({ viewer: viewerId === undefined ? undefined : h.accounts.actor(viewerId), issueIds: [60, 70], commentIds: [61] });
      expect((await ask(stranger)).attachments.map((a) => a.id)).toEqual([pub.id, pubComment.id]);
      expect((await ask(undefined)).attachments.map((a) => a.id)).toEqual([pub.id, pubComment.id]);
      expect((await ask(owner)).attachments.map((a) => a.id)).toEqual([pub.id, pubComment.id, hidden.id]);
      expect((await h.attachments.batchListAttachments({ viewer: undefined, issueIds: [], commentIds: [] })).attachments).toEqual([]);
    });
  });

  describe('downloads', () => {
    it('counts each open, anonymously on a public repository, and hides private ones from strangers', async () => {
      const added = await upload(writer, repoId, { releaseId });
      expect((await h.attachments.openAttachment({ viewer: undefined, uuid: added.uuid, noCount: false })).attachment?.downloadCount).toBe(1);
      expect((await h.attachments.openAttachment({ viewer: h.accounts.actor(reader), uuid: added.uuid, noCount: false })).attachment?.downloadCount).toBe(2);
      const secret = await upload(owner, privateRepoId, { releaseId: privateReleaseId });
      await expect(h.attachments.openAttachment({ viewer: h.accounts.actor(stranger), uuid: secret.uuid, noCount: false })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(h.attachments.openAttachment({ viewer: undefined, uuid: secret.uuid, noCount: false })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      await expect(h.attachments.openAttachment({ viewer: undefined, uuid: 'not-a-uuid', noCount: false })).rejects.toMatchObject({ code: Code.NOT_FOUND });
      expect((await h.attachments.openAttachment({ viewer: h.accounts.actor(owner), uuid: secret.uuid, noCount: false })).attachment?.downloadCount).toBe(1);
      // A HEAD request's open counts nothing.
      expect((await h.attachments.openAttachment({ viewer: h.accounts.actor(owner), uuid: secret.uuid, noCount: true })).attachment?.downloadCount).toBe(1);
      await expect(h.attachments.openAttachment({ viewer: undefined, uuid: secret.uuid, noCount: true })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });
  });

  describe('issues’ deletions', () => {
    const meta = () => ({ eventId: uuidv7(), occurredAt: new Date(), actorId: owner, repoId });
    const delivery = (subject: string, data: Uint8Array) => ({ id: uuidv7(), subject, deliveryCount: 1, data });

    it('delete a deleted comment’s attachments, then a deleted issue’s (its comments’ included), bytes and all, once', async () => {
      const own = await upload(owner, repoId, { issueId: 40, posterId: owner });
      const onComment = await upload(owner, repoId, { issueId: 40, commentId: 41, posterId: owner });
      const onOther = await upload(owner, repoId, { issueId: 40, commentId: 42, posterId: owner });
      const elsewhere = await upload(owner, repoId, { issueId: 50, posterId: owner });

      const commentEvent = encodeEvent(IssueCommentEvent, {
        meta: meta(),
        issue: Issue.fromPartial({ id: 40, repoId }),
        comment: Comment.fromPartial({ id: 41, issueId: 40, repoId }),
        repoPrivate: false,
        previousBody: '',
        mentionedUserIds: [],
      });
      const onCommentDeleted = commentDeletedHandler(h.context);
      const message = delivery('cairn.issue_comment.deleted', commentEvent);
      await onCommentDeleted(message);
      await onCommentDeleted(message);
      expect(await h.objects.stat(attachmentKey(onComment.uuid))).toBeUndefined();
      expect((await list(owner, repoId, { issueId: 40, commentId: 42 })).attachments.map((a) => a.id)).toEqual([onOther.id]);

      const issueEvent = encodeEvent(IssueEvent, IssueEvent.fromPartial({ meta: meta(), issue: Issue.fromPartial({ id: 40, repoId }) }));
      await issueDeletedHandler(h.context)(delivery('cairn.issue.deleted', issueEvent));
      for (const gone of [own, onOther]) expect(await h.objects.stat(attachmentKey(gone.uuid))).toBeUndefined();
      expect((await list(owner, repoId, { issueId: 40 })).attachments).toEqual([]);
      expect((await list(owner, repoId, { issueId: 50 })).attachments.map((a) => a.id)).toEqual([elsewhere.id]);
      expect(await h.objects.stat(attachmentKey(elsewhere.uuid))).toBeDefined();
    });
  });

  describe('the purger', () => {
    const purgeRows = () => h.db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM attachment_purges`);

    // Uploads the tests above had refused left their reservations (the gateway removes such bytes itself): start clean.
    beforeEach(async () => {
      await h.db.pool.query(sql.unsafe`DELETE FROM attachment_purges`);
    });

    it('keeps the bytes when the deleting transaction rolls back', async () => {
      const added = await upload(writer, repoId, { releaseId });
      await expect(
        h.db.pool.transaction(async (tx) => {
          await tx.query(sql.unsafe`DELETE FROM attachments WHERE id = ${added.id}`);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await purgeDueAttachments(h.context);
      expect(await h.objects.stat(attachmentKey(added.uuid))).toBeDefined();
      expect(await purgeRows()).toBe(0);
    });

    it('retries when the object store fails, and removes the bytes once it works', async () => {
      const added = await upload(writer, repoId, { releaseId });
      const realDelete = h.objects.delete;
      h.objects.delete = async () => {
        throw new Error('store away');
      };
      try {
        await h.attachments.deleteAttachment({ actor: h.accounts.actor(writer), repoId, parent: parentOf({ releaseId }), id: added.id });
      } finally {
        h.objects.delete = realDelete;
      }
      expect(await h.objects.stat(attachmentKey(added.uuid))).toBeDefined();
      const attempts = await h.db.pool.oneFirst(sql.type(z.object({ attempts: z.number() }))`SELECT attempts FROM attachment_purges WHERE uuid = ${added.uuid}`);
      expect(attempts).toBe(1);
      // Not due yet: the back-off holds it.
      expect(await purgeDueAttachments(h.context)).toEqual({ purged: 0, failed: 0 });
      await h.db.pool.query(sql.unsafe`UPDATE attachment_purges SET not_before = now()`);
      expect(await purgeDueAttachments(h.context)).toEqual({ purged: 1, failed: 0 });
      expect(await h.objects.stat(attachmentKey(added.uuid))).toBeUndefined();
      expect(await purgeRows()).toBe(0);
    });

    it('removes the bytes of an upload never recorded once its reservation runs out, and then refuses to record it', async () => {
      const uuid = randomUUID();
      await h.attachments.reserveAttachment({ actor: h.accounts.actor(writer), uuid });
      await h.objects.put(attachmentKey(uuid), Readable.from([Buffer.from('orphan')]));
      // The gateway died here. Within the reservation nothing happens…
      expect(await purgeDueAttachments(h.context)).toEqual({ purged: 0, failed: 0 });
      expect(await h.objects.stat(attachmentKey(uuid))).toEqual({ size: 6 });
      // …after it, the bytes go.
      await h.db.pool.query(sql.unsafe`UPDATE attachment_purges SET not_before = now() WHERE uuid = ${uuid}`);
      expect(await purgeDueAttachments(h.context)).toEqual({ purged: 1, failed: 0 });
      expect(await h.objects.stat(attachmentKey(uuid))).toBeUndefined();
      const late = h.attachments.createAttachment({ actor: h.accounts.actor(writer), repoId, parent: parentOf({ releaseId }), uuid, name: 'late.txt', size: 6 });
      await expect(late).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
      expect(await purgeRows()).toBe(0);
    });

    it('keeps recorded uploads: recording claims the reservation', async () => {
      const added = await upload(writer, repoId, { releaseId });
      expect(await purgeRows()).toBe(0);
      await h.db.pool.query(sql.unsafe`UPDATE attachment_purges SET not_before = now()`);
      await purgeDueAttachments(h.context);
      expect(await h.objects.stat(attachmentKey(added.uuid))).toBeDefined();
    });

    it('removes the bytes of a deleted repository’s attachments (the cascade records them)', async () => {
      const { repository } = await h.create(owner, { name: 'doomed' });
      const doomedRelease = await insertRelease(repository.id, 'v1');
      await h.db.pool.query(sql.unsafe`INSERT INTO repo_units (repo_id, unit_key) VALUES (${repository.id}, 'repo.releases') ON CONFLICT DO NOTHING`);
      const onRelease = await upload(owner, repository.id, { releaseId: doomedRelease });
      const onIssue = await upload(owner, repository.id, { issueId: 1, posterId: owner });
      await h.repos.deleteRepository({ actor: h.accounts.actor(owner), id: repository.id });
      expect(await h.objects.stat(attachmentKey(onRelease.uuid))).toBeUndefined();
      expect(await h.objects.stat(attachmentKey(onIssue.uuid))).toBeUndefined();
      expect(await purgeRows()).toBe(0);
    });
  });
});
