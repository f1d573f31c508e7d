/** Ids in requests: users and repositories are named by their positive ids (0 is "nobody" in Cairn's protos). */
import { CairnError } from '@cairn/rpc';

export function requireUserId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw CairnError.invalid(`user id must be positive [uid: ${id}]`, { reason: 'user_id_invalid' });
  return id;
}

export function requireRepoId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw CairnError.invalid(`repository id must be positive [repo_id: ${id}]`, { reason: 'repo_id_invalid' });
  return id;
}

/** A user's link to a repository named in a request (Star, Watch, …). */
export function requireLink(request: { userId: number; repoId: number }): { userId: number; repoId: number } {
  return { userId: requireUserId(request.userId), repoId: requireRepoId(request.repoId) };
}
