/**
 * ReleaseService (Gitea's routers/api/v1/repo/release.go and release_tags.go over services/release/release.go).
 * Readers of the releases unit list and read releases, drafts only when they may write (domain/releases.ts); its
 * writers create, edit and delete them (archived repositories refuse). A published release's tag is git-storage's:
 * created here through RefService.CreateTag when missing, kept when the release goes. Every change of a published
 * release publishes its cairn.release.* event in the transaction of the change.
 */
import type { CommonQueryMethods, DatabaseTransactionConnection } from '@cairn/db';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Release, ReleaseServiceService, ReleaseTagger } from '@cairn/proto/cairn/repos/v1/releases_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import { pageWindow } from '../domain/paging';
import {
  UNIT_RELEASES,
  changedFields,
  isVisible,
  planEdit,
  protectedTag,
  releaseExists,
  releaseFilter,
  releaseNotFound,
  repoIsEmpty,
  tagReleased,
  targetNotFound,
} from '../domain/releases';
import { enqueueReleaseEvent } from '../events/outbox';
import { mayControlTag } from '../protection/tag-rules';
import {
  attachmentsOfReleases,
  deleteRelease,
  findLatestRelease,
  findReleaseById,
  findReleaseByTag,
  insertRelease,
  listReleases,
  recountReleases,
  type StoredRelease,
  updateRelease,
} from '../store/releases';
import type { RepoRow } from '../store/repositories';
import { accountById } from './accounts-lookup';
import { purgeAttachmentsNow } from '../maintenance/purge-attachments';
import type { ReposContext } from './context';
import { tagCommit } from './git-tags';
import { guard } from './guard';
import { loadRepoForViewer, requireAccess, type RepoForViewer } from './repo-access';
import { gitRepository } from './repository-message';

/** The release messages of `releases`, each with its attachments. */
async function toReleases(db: CommonQueryMethods, releases: readonly StoredRelease[]): Promise<Release[]> {
  const attachments = await attachmentsOfReleases(db, releases.map((release) => release.id));
  return releases.map((release) => ({
    id: release.id,
    repoId: release.repoId,
    tagName: release.tagName,
    targetCommitish: release.target,
    name: release.title,
    body: release.note,
    draft: release.isDraft,
    prerelease: release.isPrerelease,
    publisherId: release.publisherId,
    sha: release.sha,
    created: release.created,
    assets: (attachments.get(release.id) ?? []).map((attachment) => ({ ...attachment, issueId: 0, commentId: 0 })),
  }));
}

async function toRelease(db: CommonQueryMethods, release: StoredRelease): Promise<Release> {
  const [message] = await toReleases(db, [release]);
  return message;
}

export function createReleaseService(context: ReposContext): AsyncServiceOf<typeof ReleaseServiceService> {
  const { db } = context;

  async function readable(viewer: Actor | undefined, repoId: number): Promise<RepoForViewer> {
    const loaded = await loadRepoForViewer(context, viewer, repoId);
    requireAccess(loaded.permission, { unit: UNIT_RELEASES, mode: 'read' }, loaded.repo);
    return loaded;
  }

  async function writable(actor: Actor | undefined, repoId: number): Promise<RepoRow> {
    const { repo, permission } = await loadRepoForViewer(context, actor, repoId);
    requireAccess(permission, { unit: UNIT_RELEASES, mode: 'write' }, repo);
    return repo;
  }

  /** The release the viewer may see, or NOT_FOUND. */
  function visible(release: StoredRelease | undefined, { permission }: RepoForViewer): StoredRelease {
    if (release === undefined || !isVisible(release, permission)) throw releaseNotFound();
    return release;
  }

  /**
   * Makes sure the release's tag exists (Gitea's createTag) and answers its commit: an existing tag is used as it
   * is; a missing one is created on `target` by the publisher — annotated when `message` is given — unless the tag
   * is protected from them.
   */
  async function ensureTag(repo: RepoRow, release: { tagName: string; target: string }, actorId: number, message: string, tagger: ReleaseTagger | undefined): Promise<string> {
    const repository = gitRepository(repo);
    const existing = await tagCommit(context, repository, release.tagName);
    if (existing !== undefined) return existing;
    if (!(await mayControlTag(context, repo, actorId, release.tagName))) throw protectedTag(release.tagName);
    const pusher = await accountById(context, actorId);
    try {
      const { tag } = await context.git.refs.createTag({
        repository,
        name: release.tagName,
        target: release.target,
        message,
        tagger: { name: tagger?.name ?? pusher.login, email: tagger?.email ?? pusher.email, when: new Date(), timezone: '+0000' },
        push: { pusherId: actorId, pusherName: pusher.login, repoOwnerId: repo.ownerId, repoPrivate: repo.isPrivate },
      });
      return tag?.commit?.sha ?? '';
    } catch (error) {
      if (!(error instanceof CairnError)) throw error;
      if (error.code === Code.NOT_FOUND) throw targetNotFound(release.target);
      // Created meanwhile (another request, or a push): the release attaches to it, as to any existing tag.
      const raced = error.code === Code.ALREADY_EXISTS ? await tagCommit(context, repository, release.tagName) : undefined;
      if (raced === undefined) throw error;
      return raced;
    }
  }

  /** Runs `change` on the locked release `find` answers; NOT_FOUND when there is none. */
  function changeRelease<T>(find: (tx: DatabaseTransactionConnection) => Promise<StoredRelease | undefined>, change: (tx: DatabaseTransactionConnection, release: StoredRelease) => Promise<T>): Promise<T> {
    return guard(() =>
      db.pool.transaction(async (tx) => {
        const release = await find(tx);
        if (release === undefined) throw releaseNotFound();
        return change(tx, release);
      }),
    );
  }

  return {
    async listReleases(request) {
      const loaded = await readable(request.viewer, request.repoId);
      const filter = releaseFilter(loaded.permission, { draft: request.draft, prerelease: request.prerelease });
      const { releases, total } = await guard(() => listReleases(db.pool, { repoId: loaded.repo.id, filter, window: pageWindow(request.page) }));
      return { releases: await guard(() => toReleases(db.pool, releases)), total };
    },

    async getRelease(request) {
      const loaded = await readable(request.viewer, request.repoId);
      const release = visible(await guard(() => findReleaseById(db.pool, loaded.repo.id, request.id)), loaded);
      return { release: await guard(() => toRelease(db.pool, release)) };
    },

    async getReleaseByTag(request) {
      const loaded = await readable(request.viewer, request.repoId);
      const release = visible(await guard(() => findReleaseByTag(db.pool, loaded.repo.id, request.tagName)), loaded);
      return { release: await guard(() => toRelease(db.pool, release)) };
    },

    async getLatestRelease(request) {
      const loaded = await readable(request.viewer, request.repoId);
      const release = visible(await guard(() => findLatestRelease(db.pool, loaded.repo.id)), loaded);
      return { release: await guard(() => toRelease(db.pool, release)) };
    },

    async createRelease(request) {
      const actorId = request.actor?.userId ?? 0;
      const repo = await writable(request.actor, request.repoId);
      if (repo.isEmpty) throw repoIsEmpty();
      if (request.tagName === '') throw CairnError.invalid('tag_name is required');
      if ((await guard(() => findReleaseByTag(db.pool, repo.id, request.tagName))) !== undefined) throw releaseExists();
      const target = request.targetCommitish || repo.defaultBranch;
      // The tag is made before the row is written, outside the transaction (no transaction waits on git): a crash
      // in between leaves a plain tag, which a retry finds and attaches to, as it would to any existing tag. The
      // other order could commit a release whose tag never came to be.
      const sha = request.draft ? undefined : await ensureTag(repo, { tagName: request.tagName, target }, actorId, request.tagMessage, request.tagger);
      const release = await guard(() =>
        db.pool.transaction(async (tx) => {
          const stored = await insertRelease(tx, {
            repoId: repo.id,
            tagName: request.tagName,
            target,
            title: request.name,
            note: request.body,
            publisherId: actorId,
            isDraft: request.draft,
            isPrerelease: request.prerelease,
            sha: sha ?? '',
          });
          const message = await toRelease(tx, stored);
          if (!stored.isDraft) {
            await recountReleases(tx, repo.id);
            await enqueueReleaseEvent(tx, 'published', message, actorId);
          }
          return message;
        }),
      );
      return { release };
    },

    async updateRelease(request) {
      const actorId = request.actor?.userId ?? 0;
      const repo = await writable(request.actor, request.repoId);
      const current = await guard(() => findReleaseById(db.pool, repo.id, request.id));
      if (current === undefined) throw releaseNotFound();
      const plan = planEdit(current, request);
      if (plan.next.tagName !== current.tagName) {
        const other = await guard(() => findReleaseByTag(db.pool, repo.id, plan.next.tagName));
        if (other !== undefined && other.id !== current.id) throw tagReleased(plan.next.tagName);
      }
      // As for a new release, the tag comes first and a retry finds it (services/release UpdateRelease). A draft
      // names no commit (the contract's Release.sha), though Gitea keeps an unpublished release's.
      const sha = plan.needsTag ? await ensureTag(repo, plan.next, actorId, '', request.tagger) : plan.next.isDraft ? '' : undefined;
      const release = await changeRelease(
        (tx) => findReleaseById(tx, repo.id, request.id, true),
        async (tx, locked) => {
          const stored = await updateRelease(tx, locked.id, {
            ...changedFields(locked, plan.next),
            ...(sha === undefined ? {} : { sha }),
            ...(plan.resetCreated ? { created: new Date() } : {}),
          });
          const message = await toRelease(tx, stored);
          await recountReleases(tx, repo.id);
          if (plan.event !== undefined) await enqueueReleaseEvent(tx, plan.event, message, actorId);
          return message;
        },
      );
      return { release };
    },

    async deleteRelease(request) {
      const actorId = request.actor?.userId ?? 0;
      const repo = await writable(request.actor, request.repoId);
      if (request.id <= 0 && request.tagName === '') throw CairnError.invalid('id or tag_name is required');
      await changeRelease(
        (tx) => (request.id > 0 ? findReleaseById(tx, repo.id, request.id, true) : findReleaseByTag(tx, repo.id, request.tagName, true)),
        async (tx, release) => {
          // The message is taken before the row goes: its assets go with it.
          const message = await toRelease(tx, release);
          await deleteRelease(tx, release.id);
          if (!release.isDraft) {
            await recountReleases(tx, repo.id);
            await enqueueReleaseEvent(tx, 'deleted', message, actorId);
          }
        },
      );
      // The assets' bytes, now that their rows' deletion committed.
      await purgeAttachmentsNow(context);
      return {};
    },
  };
}
