/**
 * Removing git data only after the transaction that decided it has committed (store/purges.ts). Gitea removes a
 * deleted repository's directory inside its deleting transaction (services/repository/delete.go), so a failed
 * commit or a crash leaves a row without data; here the transaction records the removal, and the removal itself
 * happens afterwards: at once for a deletion through the API, and by this purger for whatever is left (a crash
 * between commit and removal, git-storage away, an owner's repositories deleted by the accounts consumer, the
 * directory of a creation that never committed). git-storage's DeleteRepository is idempotent (a missing directory
 * is success), so a removal repeated after a crash removes nothing twice.
 */
import type { ReposContext } from '../rpc/context';
import { finishPurge, lockPurge, postponePurge } from '../store/purges';
import { type PeriodicSweep, startPeriodicSweep } from './periodic';

/** Longest wait between two tries of a failing removal. */
const MAX_RETRY_DELAY_MS = 10 * 60_000;
/** How often the purger looks for due removals; start-up looks at once. */
const DEFAULT_POLL_MS = 30_000;

type Outcome = 'purged' | 'failed' | 'none';

/** Removes one repository's git data (`repoId`, or else the removal due longest) and forgets the removal. */
async function purgeOne(context: ReposContext, repoId?: number): Promise<Outcome> {
  return context.db.pool.transaction(async (tx): Promise<Outcome> => {
    const repository = await lockPurge(tx, repoId);
    if (repository === undefined) return 'none';
    try {
      await context.git.repositories.deleteRepository({ repository });
    } catch (error) {
      const attempts = await postponePurge(tx, repository.repoId, MAX_RETRY_DELAY_MS);
      context.logger.warn({ err: error, repo_id: repository.repoId, attempts }, 'could not remove a repository’s git data; retrying later');
      return 'failed';
    }
    await finishPurge(tx, repository.repoId);
    return 'purged';
  });
}

/**
 * Removes the git data of `repoId` now, after the transaction that scheduled it committed. Never fails: what is not
 * removed now (git-storage or the database away, another replica's purger on it) stays scheduled for the purger.
 */
export async function purgeNow(context: ReposContext, repoId: number): Promise<void> {
  try {
    await purgeOne(context, repoId);
  } catch (error) {
    context.logger.warn({ err: error, repo_id: repoId }, 'could not remove a repository’s git data now; the purger retries');
  }
}

/** Every removal that is due, one at a time; a failing one is put off and the others go on. */
export async function purgeDueRepositories(context: ReposContext): Promise<{ purged: number; failed: number }> {
  const done = { purged: 0, failed: 0 };
  for (;;) {
    const outcome = await purgeOne(context);
    if (outcome === 'none') return done;
    done[outcome] += 1;
  }
}

export type RepositoryPurger = PeriodicSweep;

/** Purges what is due at start-up (what a crash left) and then every `pollMs`. */
export function startRepositoryPurger(context: ReposContext, options: { pollMs?: number } = {}): RepositoryPurger {
  return startPeriodicSweep(async () => {
    try {
      const done = await purgeDueRepositories(context);
      if (done.purged + done.failed > 0) context.logger.info({ task: 'purge_repositories', ...done }, 'removed deleted repositories’ git data');
    } catch (error) {
      // The database is away: the rows wait for the next round.
      context.logger.warn({ err: error, task: 'purge_repositories' }, 'could not look for git data to remove');
    }
  }, options.pollMs ?? DEFAULT_POLL_MS);
}
