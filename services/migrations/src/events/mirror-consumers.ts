/**
 * What mirrors learn from the bus: a repository's new `mirror_interval` (repos' cairn.repo.updated; Gitea's
 * updateMirror reschedules the next sync), its deletion (its mirrors go with it), and pushes to it (git-storage's
 * cairn.git.pushed: its push mirrors with sync_on_commit are pushed, Gitea's SyncPushMirrorWithSyncOnCommit). Each
 * event is applied once (its id recorded in the effect's transaction); the scheduler is woken after the commit.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { RepoDeleted, RepoUpdated } from '@cairn/proto/cairn/repos/v1/events';
import { pullMirrorIntervalMs } from '../domain/mirrors';
import type { MigrationsContext } from '../rpc/context';
import { deletePullMirror, setPullInterval } from '../store/pull-mirrors';
import { deletePushMirrorsOf, requestPushSyncs } from '../store/push-mirrors';

/** repos' stream and the subjects read from it (repos defines the stream). */
export const REPOS_STREAM = 'CAIRN_REPOS';
export const RepoSubject = { updated: 'cairn.repo.updated', deleted: 'cairn.repo.deleted' } as const;
/** git-storage's stream (it defines it). */
export const GIT_STREAM = 'CAIRN_GIT';
export const GIT_PUSHED = 'cairn.git.pushed';

export const MIRROR_INTERVAL_CONSUMER = 'migrations-mirror-interval';
export const REPO_DELETED_CONSUMER = 'migrations-repo-deleted';
export const PUSH_MIRROR_CONSUMER = 'migrations-push-mirrors';

export function mirrorIntervalHandler(context: MigrationsContext): BusHandler {
  const { db, logger, config } = context;
  return applyOnce({
    db,
    logger,
    consumer: MIRROR_INTERVAL_CONSUMER,
    type: RepoUpdated,
    apply: async (tx, event) => {
      const repository = event.repository;
      if (repository === undefined || !repository.mirror || !event.changed.includes('mirror_interval')) return;
      await setPullInterval(tx, repository.id, pullMirrorIntervalMs(repository.mirrorInterval, config.mirror.defaultInterval));
    },
  });
}

export function repoDeletedHandler(context: MigrationsContext): BusHandler {
  const { db, logger } = context;
  return applyOnce({
    db,
    logger,
    consumer: REPO_DELETED_CONSUMER,
    type: RepoDeleted,
    apply: async (tx, event) => {
      await deletePullMirror(tx, event.repoId);
      await deletePushMirrorsOf(tx, event.repoId);
    },
  });
}

export function pushedHandler(context: MigrationsContext): BusHandler {
  const { db, logger } = context;
  const finish = applyOnce({
    db,
    logger,
    consumer: PUSH_MIRROR_CONSUMER,
    type: GitPushed,
    apply: async (tx, event) => {
      await requestPushSyncs(tx, event.repoId, 'on_commit');
    },
  });
  return async (message) => {
    await finish(message);
    context.mirrors?.wake();
  };
}

export async function startMirrorConsumers(context: MigrationsContext, bus: Bus): Promise<Subscription[]> {
  return Promise.all([
    bus.consume({ stream: REPOS_STREAM, durable: MIRROR_INTERVAL_CONSUMER, filterSubject: RepoSubject.updated, handler: mirrorIntervalHandler(context) }),
    bus.consume({ stream: REPOS_STREAM, durable: REPO_DELETED_CONSUMER, filterSubject: RepoSubject.deleted, handler: repoDeletedHandler(context) }),
    bus.consume({ stream: GIT_STREAM, durable: PUSH_MIRROR_CONSUMER, filterSubject: GIT_PUSHED, handler: pushedHandler(context) }),
  ]);
}
