/**
 * Where a repository lives on disk: `<root>/<storage>/<ab>/<cd>/<id>.git`, where `abcd` are the first hex digits of
 * the sha256 of the id. The path depends only on the id (and storage name), so renames and transfers never move
 * data, and hashing spreads repositories evenly over directories.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CairnError } from '@cairn/rpc';

export const DEFAULT_STORAGE = 'default';
const STORAGE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface RepositoryAddress {
  storage: string;
  repoId: number;
}

/** The bare repository's directory. INVALID_ARGUMENT for a bad id or storage name. */
export function repositoryPath(root: string, repository: RepositoryAddress | undefined): string {
  if (repository === undefined) throw CairnError.invalid('repository is required');
  const storage = repository.storage === '' ? DEFAULT_STORAGE : repository.storage;
  if (!STORAGE_NAME.test(storage)) throw CairnError.invalid(`invalid storage name: ${storage}`);
  if (!Number.isSafeInteger(repository.repoId) || repository.repoId < 1) throw CairnError.invalid(`invalid repository id: ${repository.repoId}`);
  const digest = createHash('sha256').update(String(repository.repoId)).digest('hex');
  return path.join(root, storage, digest.slice(0, 2), digest.slice(2, 4), `${repository.repoId}.git`);
}
