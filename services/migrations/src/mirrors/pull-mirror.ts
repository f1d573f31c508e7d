/**
 * A pull mirror's start, as its import ends (Gitea's MigrateRepositoryGitData creates the mirror row when the
 * first fetch is done): the schedule with the repository's interval and the import's remote and credentials, and
 * the repository's mirror_updated.
 */
import type { Logger } from '@cairn/log';
import { pullMirrorIntervalMs } from '../domain/mirrors';
import type { MigrationsContext } from '../rpc/context';
import { findPullMirror, type NewPullMirror } from '../store/pull-mirrors';
import type { TaskRow } from '../store/tasks';

/** The schedule of the mirror `task` imported (read before the transaction that ends the task). */
export async function newPullMirror(context: MigrationsContext, task: TaskRow): Promise<NewPullMirror> {
  const { repository } = await context.clients.repos.getRepository({
    viewer: { userId: task.doer_id, isAdmin: true, isRestricted: false },
    id: task.repo_id,
    owner: '',
    name: '',
  });
  return {
    repoId: task.repo_id,
    remoteAddress: task.clone_addr,
    auth: { username: task.auth_username, password: task.auth_password, token: task.auth_token },
    intervalMs: pullMirrorIntervalMs(repository?.repository?.mirrorInterval ?? '', context.config.mirror.defaultInterval),
  };
}

/** Tells repos the import's time as the mirror's first sync; a lost report is made good by the next sync. */
export async function recordFirstSync(context: MigrationsContext, repoId: number, log: Logger): Promise<void> {
  const mirror = await findPullMirror(context.db.pool, repoId);
  if (mirror?.updated_at == null) return;
  await context.clients.repos.recordMirrorSync({ repoId, syncedAt: mirror.updated_at }).catch((error: unknown) => {
    log.warn({ err: error }, 'recording the mirror sync with repos failed');
  });
}
