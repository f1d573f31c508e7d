/**
 * What the pull-request and review routes share. Gitea's `/pulls` group asks for a repository whose pull requests
 * and code the caller may read (`mustAllowPulls`, `reqRepoReader(unit.TypeCode)`: 404 otherwise); the route record
 * checks the pulls unit, `requireCodeReader` the code unit. The issues service decides everything about the pull
 * request itself from the RepoScope; its NOT_FOUND is Gitea's bare 404 and its bodiless PERMISSION_DENIED a bare 403
 * (tracker answers).
 */
import { HttpError } from '@cairn/http';
import type { PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_CODE, UNIT_PULLS, accessAtLeast, toApiPullRequest } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import { type ApiContext, type ApiReply, json, repoOf } from '../../api/types';
import { TRACKER_ERRORS, trackerAnswer } from '../../issues/tracker-answers';

/** Route-record parts: readers may be anonymous; changes need a signed-in caller and refuse archived repositories. */
export const PULL_READER = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_PULLS, mode: 'read' }, errors: TRACKER_ERRORS } as const;
export const PULL_CHANGER = {
  scope: 'repository',
  auth: 'required',
  repo: { unit: UNIT_PULLS, mode: 'read', archived: 'refuse' },
  errors: TRACKER_ERRORS,
} as const;

/** Signed-in callers in any state of the repository (Gitea's review routes have no archive guard; the service decides). */
export const PULL_SIGNED_IN = { scope: 'repository', auth: 'required', repo: { unit: UNIT_PULLS, mode: 'read' }, errors: TRACKER_ERRORS } as const;

/** Gitea's reqRepoReader(unit.TypeCode) inside the pulls group: 404 unless the code unit is on and readable. */
export function requireCodeReader<B>(ctx: ApiContext<B>): void {
  const { repository, permission } = repoOf(ctx);
  if (!repository.units.some((unit) => unit.key === UNIT_CODE) || !accessAtLeast(permission.units[UNIT_CODE], 'read')) {
    throw HttpError.notFound();
  }
}

/** A pull-request handler: the code unit checked, then the work with the service's refusals answered as Gitea's. */
export function pullHandler<B>(work: (ctx: ApiContext<B>) => Promise<ApiReply>): (ctx: ApiContext<B>) => Promise<ApiReply> {
  return (ctx) => {
    requireCodeReader(ctx);
    return trackerAnswer(() => work(ctx));
  };
}

/** The `{index}` of the path; anything but a positive integer names no pull request (the service answers 404). */
export function pullIndexOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.index);
}

export function pullOf(pull: PullRequest | undefined): PullRequest {
  if (pull === undefined) throw new Error('the issues service answered without the pull request');
  return pull;
}

export async function answerPull<B>(ctx: ApiContext<B>, status: number, pull: PullRequest | undefined): Promise<ApiReply> {
  return json(status, await toApiPullRequest(ctx.services, ctx.viewer, pullOf(pull), repoOf(ctx)));
}

/**
 * The service's unknown team reviewer is Gitea's `Team 'x' not exist` 404 (parseReviewersByNames; the route's tracker
 * answer would drop the message).
 */
export async function teamNamed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND && error.reason === 'team_not_found') throw HttpError.notFound(error.message);
    throw error;
  }
}
