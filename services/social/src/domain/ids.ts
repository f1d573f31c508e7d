/** Ids in requests: users and repositories are named by their positive ids (0 is "nobody" in Cairn's protos). */
import type { ReactionTarget } from '@cairn/proto/cairn/social/v1/social_service';
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

/** A reaction's target named in a request: a repository, an issue in it and a comment of it (0: the issue itself). */
export function requireTarget(target: ReactionTarget | undefined): ReactionTarget {
  if (target === undefined) throw CairnError.invalid('target is required', { reason: 'target_invalid' });
  const { issueId, commentId } = target;
  if (!Number.isSafeInteger(issueId) || issueId < 1) {
    throw CairnError.invalid(`issue id must be positive [id: ${issueId}]`, { reason: 'target_invalid' });
  }
  if (!Number.isSafeInteger(commentId) || commentId < 0) {
    throw CairnError.invalid(`comment id must not be negative [id: ${commentId}]`, { reason: 'target_invalid' });
  }
  return { ...target, repoId: requireRepoId(target.repoId) };
}
