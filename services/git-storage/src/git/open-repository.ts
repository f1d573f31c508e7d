/** Finding an existing repository's directory for a read or write RPC. */
import path from 'node:path';
import type { Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { repositoryPath } from '../storage/layout';
import { statIfExists } from '../storage/stat-if-exists';

/** The request's repository address; INVALID_ARGUMENT when absent. */
export function requireRepository(repository: Repository | undefined): Repository {
  if (repository === undefined) throw CairnError.invalid('repository is required');
  return repository;
}

/** The bare repository's directory; NOT_FOUND (reason `repository_not_found`) when it is not on disk. */
export async function openRepository(root: string, repository: Repository | undefined): Promise<string> {
  const gitDir = repositoryPath(root, requireRepository(repository));
  const head = await statIfExists(path.join(gitDir, 'HEAD'));
  if (head === undefined) throw CairnError.notFound('repository does not exist', { reason: 'repository_not_found' });
  return gitDir;
}
