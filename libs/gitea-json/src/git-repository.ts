import type { Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';

/** How git-storage names a repository: by its id and storage, never by name, so renames and transfers do not matter. */
export function gitRepositoryOf(repository: Repository): GitRepository {
  return { storage: repository.storage, repoId: repository.id };
}
