/**
 * How the gateway names a repository and a ref change to git-storage: the repository by its id and storage
 * (never by name, so renames and transfers do not matter), and who moves refs with what the
 * `cairn.git.pushed` event says about the repository.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { PushContext, Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';

export function gitRepositoryOf(repository: Repository): GitRepository {
  return { storage: repository.storage, repoId: repository.id };
}

export function pushContextOf(pusher: User, repository: Repository): PushContext {
  return { pusherId: pusher.id, pusherName: pusher.login, repoOwnerId: repository.ownerId, repoPrivate: repository.private };
}
