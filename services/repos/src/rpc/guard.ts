/** Runs a handler's body so that every failure leaves it as a CairnError, database errors included. */
import { toCairnError } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import { releaseExists } from '../domain/releases';

/** Gitea's answer to a name the owner already has (409 when creating; renames and transfers use their own). */
export function repoExists(): CairnError {
  return CairnError.exists('The repository with the same name already exists.', { reason: 'repo_exists' });
}

export function toReposError(error: unknown): CairnError {
  const mapped = toCairnError(error);
  // A name taken by a concurrent request after the pre-check.
  if (mapped.reason === 'repositories_owner_id_lower_name_key') return repoExists();
  // A tag released by a concurrent request after the pre-check.
  if (mapped.reason === 'releases_repo_tag_key') return releaseExists();
  return mapped;
}

export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toReposError(error);
  }
}
