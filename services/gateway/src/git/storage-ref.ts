/**
 * How the gateway names a ref change to git-storage: who moves refs, with what the `cairn.git.pushed` event says
 * about the repository (the repository itself is named by @cairn/gitea-json's gitRepositoryOf).
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { PushContext } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';

export function pushContextOf(pusher: User, repository: Repository): PushContext {
  return { pusherId: pusher.id, pusherName: pusher.login, repoOwnerId: repository.ownerId, repoPrivate: repository.private };
}
