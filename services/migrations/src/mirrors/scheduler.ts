/**
 * The mirror scheduler (Gitea's services/mirror: the pull and push mirror queues and the periodic update task), run
 * in every replica: each claims due mirrors with a lease in PostgreSQL (store/mirror-claims.ts), so replicas never
 * sync one mirror at once and a crashed replica's claim lapses after the sync's own timeout. A pull mirror's sync
 * fetches its remote into the repository (git-storage FetchRemote with prune, published as a push by the owner with
 * origin "mirror", as Gitea's SyncPushCommits) and records mirror_updated with repos; a push mirror's makes its
 * remote's branches and tags the repository's (PushRemote). `[mirror] ENABLED = false`: nothing is synced.
 */
import { type ClaimLoop, startClaimLoop } from '@cairn/service';
import { Code, isCairnError } from '@cairn/rpc';
import type { MigrationsContext } from '../rpc/context';
import { claimPullMirrors, deletePullMirror, endPullSync, type PullMirrorRow } from '../store/pull-mirrors';
import { claimPushMirrors, deletePushMirrorsOf, endPushSync, type PushMirrorRow } from '../store/push-mirrors';

const POLL_MS = 5_000;
/** Syncs run at once per replica and kind (each holds a git-storage fetch or push). */
const CONCURRENCY = 4;
/** The deadline of a sync call beyond its own git timeout; the lease covers both. */
const CALL_MARGIN_MS = 30_000;

/**
 * Reads the mirror's own repository as a site admin (the sync runs long after anyone's request; repos lets
 * migrations act for anyone, and an id of 0 would be anonymous).
 */
const SYSTEM = { userId: 1, isAdmin: true, isRestricted: false };

export interface MirrorScheduler {
  /** A sync was asked for: claim now. */
  wake(): void;
  stop(): Promise<void>;
}

export function startMirrorScheduler(context: MigrationsContext, options: { pollIntervalMs?: number } = {}): MirrorScheduler {
  const { config, logger, db } = context;
  const leaseMs = config.git.timeout.mirror + CALL_MARGIN_MS * 2;
  const pollIntervalMs = options.pollIntervalMs ?? POLL_MS;
  if (!config.mirror.enabled) return { wake: () => undefined, stop: () => Promise.resolve() };
  const pull: ClaimLoop<PullMirrorRow> = startClaimLoop<PullMirrorRow>({
    claim: (room) => claimPullMirrors(db.pool, room, leaseMs),
    run: (mirror) => syncPullMirror(context, mirror),
    concurrency: CONCURRENCY,
    pollIntervalMs,
    onClaimError: (error) => logger.error({ err: error }, 'claiming pull mirrors failed'),
    onRunError: (error, mirror) => logger.error({ err: error, repo_id: mirror.repo_id }, 'pull mirror sync failed unexpectedly'),
  });
  const push: ClaimLoop<PushMirrorRow> = startClaimLoop<PushMirrorRow>({
    claim: (room) => claimPushMirrors(db.pool, room, leaseMs),
    run: (mirror) => syncPushMirror(context, mirror),
    concurrency: CONCURRENCY,
    pollIntervalMs,
    onClaimError: (error) => logger.error({ err: error }, 'claiming push mirrors failed'),
    onRunError: (error, mirror) => logger.error({ err: error, repo_id: mirror.repo_id, remote_name: mirror.remote_name }, 'push mirror sync failed unexpectedly'),
  });
  return {
    wake: () => {
      pull.wake();
      push.wake();
    },
    stop: async () => {
      await Promise.all([pull.stop(), push.stop()]);
    },
  };
}

/** The repository a mirror belongs to; undefined (and its mirrors removed) when it is gone. */
async function repositoryOf(context: MigrationsContext, repoId: number) {
  try {
    const { repository } = await context.clients.repos.getRepository({ viewer: SYSTEM, id: repoId, owner: '', name: '' });
    return repository?.repository;
  } catch (error) {
    if (!(isCairnError(error) && error.code === Code.NOT_FOUND)) throw error;
    // The deletion's event removes them too; this covers a sync claimed before it arrived.
    await deletePullMirror(context.db.pool, repoId);
    await deletePushMirrorsOf(context.db.pool, repoId);
    return undefined;
  }
}

/** What a failed sync records: the error's message (the RPC's, which never holds a credential). */
function failureOf(error: unknown): string {
  return isCairnError(error) ? error.message : 'internal error';
}

async function syncPullMirror(context: MigrationsContext, mirror: PullMirrorRow): Promise<void> {
  const { clients, config, db } = context;
  const log = context.logger.child({ repo_id: mirror.repo_id, attempt: mirror.attempts });
  const repo = await repositoryOf(context, mirror.repo_id);
  if (repo === undefined) return;
  const started = Date.now();
  let error = '';
  try {
    const fetched = await clients.remotes.fetchRemote(
      {
        repository: { storage: repo.storage, repoId: repo.id },
        url: mirror.remote_address,
        auth: { username: mirror.auth_username, password: mirror.auth_password, token: mirror.auth_token },
        prune: true,
        timeoutSeconds: Math.ceil(config.git.timeout.mirror / 1000),
        // Gitea's SyncPushCommits: a mirror's new commits are pushed by the repository's owner.
        push: { pusherId: repo.ownerId, repoOwnerId: repo.ownerId, repoPrivate: repo.private, pusherName: repo.ownerName },
        origin: 'mirror',
      },
      { deadlineMs: config.git.timeout.mirror + CALL_MARGIN_MS },
    );
    log.info({ refs: fetched.updated.length, duration_ms: Date.now() - started }, 'pull mirror synced');
  } catch (failure) {
    error = failureOf(failure);
    log.warn({ err: failure, duration_ms: Date.now() - started }, 'pull mirror sync failed');
  }
  const syncedAt = await endPullSync(db.pool, mirror.repo_id, mirror.attempts, error);
  if (syncedAt === undefined) return;
  // Gitea moves the mirror's updated time on a failed sync too (TouchMirror). After the commit; a lost report is
  // made good by the next sync.
  await clients.repos.recordMirrorSync({ repoId: mirror.repo_id, syncedAt }).catch((failure: unknown) => {
    log.warn({ err: failure }, 'recording the mirror sync with repos failed');
  });
}

async function syncPushMirror(context: MigrationsContext, mirror: PushMirrorRow): Promise<void> {
  const { clients, config, db } = context;
  const log = context.logger.child({ repo_id: mirror.repo_id, remote_name: mirror.remote_name, attempt: mirror.attempts });
  const repo = await repositoryOf(context, mirror.repo_id);
  if (repo === undefined) return;
  const started = Date.now();
  let error = '';
  try {
    await clients.remotes.pushRemote(
      {
        repository: { storage: repo.storage, repoId: repo.id },
        url: mirror.remote_address,
        auth: { username: mirror.auth_username, password: mirror.auth_password, token: '' },
        timeoutSeconds: Math.ceil(config.git.timeout.mirror / 1000),
      },
      { deadlineMs: config.git.timeout.mirror + CALL_MARGIN_MS },
    );
    log.info({ duration_ms: Date.now() - started }, 'push mirror synced');
  } catch (failure) {
    error = failureOf(failure);
    log.warn({ err: failure, duration_ms: Date.now() - started }, 'push mirror sync failed');
  }
  await endPushSync(db.pool, mirror.id, mirror.attempts, error);
}
