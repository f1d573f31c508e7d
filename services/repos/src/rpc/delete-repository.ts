/**
 * DeleteRepository (Gitea's services/repository/delete.go): the row and everything hanging off it in one transaction,
 * which also schedules the removal of the git data; the data is removed only once that transaction has committed
 * (maintenance/purge-repositories.ts), so a failed commit or a crash never leaves a row without data. Forks stay, as
 * repositories of their own.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { DeleteRepositoryRequest, DeleteRepositoryResponse } from '@cairn/proto/cairn/repos/v1/repos_service';
import { viewerFromActor } from '../domain/access';
import { enqueueRepoDeleted } from '../events/outbox';
import { purgeAttachmentsNow } from '../maintenance/purge-attachments';
import { purgeNow } from '../maintenance/purge-repositories';
import { schedulePurge } from '../store/purges';
import { deleteRepository as deleteRow, type RepoRow } from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, requireAccess } from './repo-access';
import { gitRepository } from './repository-message';

/** Deletes one repository in `tx` (also used when its owner is deleted); its git data goes after the commit. */
export async function removeRepository(tx: DatabaseTransactionConnection, repo: RepoRow, actorId: number): Promise<void> {
  await deleteRow(tx, repo);
  await enqueueRepoDeleted(tx, repo, actorId);
  await schedulePurge(tx, gitRepository(repo));
}

export async function deleteRepositoryHandler(context: ReposContext, request: DeleteRepositoryRequest): Promise<DeleteRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { repo, permission } = await loadRepoForViewer(context, viewer, request.id);
  requireAccess(permission, { mode: 'owner', archived: 'allow' }, repo);
  await guard(() => context.db.pool.transaction((tx) => removeRepository(tx, repo, viewer.id)));
  // Deleted: what git-storage does not remove now, the purger removes later.
  await purgeNow(context, repo.id);
  // …and its attachments' bytes (the rows went with the repository's: the cascade recorded them).
  await purgeAttachmentsNow(context);
  return {};
}
