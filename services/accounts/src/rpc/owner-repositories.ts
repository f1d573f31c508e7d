/**
 * An owner's repositories, asked of repos before the owner is deleted (Gitea's services/user/delete.go and
 * services/org/org.go): an owner of repositories is refused, and a purge deletes them first through repos, so their
 * git data and everything hanging off them go too. repos' `repos-accounts` consumer deletes any created between this
 * question and the deletion.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { CairnError, Code } from '@cairn/rpc';
import { ownerHasRepositories } from '../domain/errors';
import type { ReposClient } from './context';

/** Repositories listed per round of a purge; rounds repeat until none is left. */
const PURGE_BATCH = 50;

/** FAILED_PRECONDITION (reason `owner_has_repositories`) while `ownerId` owns a repository. */
export async function assertOwnsNoRepositories(repos: ReposClient, ownerId: number): Promise<void> {
  const { total } = await repos.countOwnerRepositories({ ownerId });
  if (total > 0) throw ownerHasRepositories(ownerId);
}

/** Deletes every repository of `ownerId` as the site administrator `adminId`. */
export async function deleteOwnerRepositories(repos: ReposClient, ownerId: number, adminId: number): Promise<void> {
  const actor: Actor = { userId: adminId, isAdmin: true, isRestricted: false };
  for (;;) {
    const { repositories } = await repos.listOwnerRepositories({ viewer: actor, ownerId, page: { page: 1, limit: PURGE_BATCH } });
    if (repositories.length === 0) return;
    for (const { repository } of repositories) {
      if (repository === undefined) continue;
      // Deleted meanwhile by someone else: gone either way.
      await repos.deleteRepository({ actor, id: repository.id }).catch((error: unknown) => {
        if (!(error instanceof CairnError && error.code === Code.NOT_FOUND)) throw error;
      });
    }
  }
}
