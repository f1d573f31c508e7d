/**
 * DeleteRepository (Gitea's services/repository/delete.go): the row and everything hanging off it, then the git data,
 * within one transaction so a git failure leaves the repository as it was. Forks stay, as repositories of their own.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { DeleteRepositoryRequest, DeleteRepositoryResponse } from '@cairn/proto/cairn/repos/v1/repos_service';
import { viewerFromActor } from '../domain/access';
import { enqueueRepoDeleted } from '../events/outbox';
import { deleteRepository as deleteRow, type RepoRow } from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, requireAccess } from './repo-access';
import { gitRepository } from './repository-message';

/** Deletes one repository in `tx` (also used when its owner is deleted); git data goes last. */
export async function removeRepository(context: ReposContext, tx: DatabaseTransactionConnection, repo: RepoRow, actorId: number): Promise<void> {
  await deleteRow(tx, repo);
  await enqueueRepoDeleted(tx, repo, actorId);
  await context.git.repositories.deleteRepository({ repository: gitRepository(repo) });
}

export async function deleteRepositoryHandler(context: ReposContext, request: DeleteRepositoryRequest): Promise<DeleteRepositoryResponse> {
  const viewer = viewerFromActor(request.actor);
  const { repo, permission } = await loadRepoForViewer(context, viewer, request.id);
  requireAccess(permission, { mode: 'owner', archived: 'allow' }, repo);
  await guard(() => context.db.pool.transaction((tx) => removeRepository(context, tx, repo, viewer.id)));
  return {};
}
