/**
 * Review requests (Gitea's IsValidReviewRequest, AddReviewRequest, RemoveReviewRequest), shared by CreatePull and
 * ReviewService: a request is a REQUEST_REVIEW review plus a `review_requests` row, which an approval or change
 * request of the reviewer answers and a cancellation withdraws. Team reviewers are not supported.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { CairnError, Code } from '@cairn/rpc';
import { type Access, accessOf, canRead, canWrite, canWriteCode } from '../domain/permissions';
import type { PullRow } from '../store/pulls';
import {
  type ReviewRow,
  ReviewType,
  addReviewRequest,
  clearOfficial,
  deleteReviewRow,
  insertReview,
  latestDecidingReview,
  removeReviewRequest,
  restoreOfficial,
} from '../store/reviews';
import type { IssuesContext } from './context';

/** Each reviewer asked costs a question to repos; one request asks at most this many (Gitea has no limit). */
export const MAX_REVIEWERS = 100;

export interface CheckedReviewer {
  id: number;
  /** The reviewer writes the base repository's code: their reviews count (Gitea's IsOfficialReviewer). */
  official: boolean;
}

function notValid(reason: string, reviewerId: number, repoId: number): CairnError {
  return CairnError.invalid(`${reason} [user_id: ${reviewerId}, repo_id: ${repoId}]`, { reason: 'review_request_invalid' });
}

/** Gitea's CanDoerChangeReviewRequests: the poster, the repository's owner, or someone who writes pull requests. */
export function canChangeReviewRequests(access: Access, posterId: number): boolean {
  if (access.repository.archived) return false;
  const viewerId = access.viewer.id;
  return viewerId === posterId || viewerId === access.repository.ownerId || canWrite(access, true);
}

/** The reviewer's access to the base repository, as repos decides it. */
async function reviewerAccess(context: Pick<IssuesContext, 'repos'>, access: Access, reviewerId: number): Promise<Access | undefined> {
  try {
    const { repository } = await context.repos.repos.getRepository({
      viewer: { userId: reviewerId, isAdmin: false, isRestricted: false },
      id: access.repository.id,
      owner: '',
      name: '',
    });
    return repository === undefined ? undefined : accessOf({ viewer: { userId: reviewerId, isAdmin: false, isRestricted: false }, repository });
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

/**
 * Checks that the viewer may ask (`add`) or stop asking these users to review, and that each may review: reads
 * pull requests and is not the poster. INVALID_ARGUMENT (Gitea's 422 ErrNotValidReviewRequest) otherwise.
 */
export async function checkReviewers(
  context: Pick<IssuesContext, 'repos' | 'db'>,
  access: Access,
  pull: Pick<PullRow, 'issue_id' | 'poster_id'>,
  reviewerIds: readonly number[],
  add: boolean,
): Promise<CheckedReviewer[]> {
  const repoId = access.repository.id;
  const ids = [...new Set(reviewerIds)];
  if (ids.length > MAX_REVIEWERS) throw CairnError.invalid(`at most ${MAX_REVIEWERS} reviewers per request`, { reason: 'too_many_reviewers' });
  if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw CairnError.invalid('user does not exist', { reason: 'reviewer_not_found' });
  const canChange = canChangeReviewRequests(access, pull.poster_id);
  const checked: CheckedReviewer[] = [];
  for (const id of ids) {
    if (!add) {
      if (!canChange) {
        // Reviewers may withdraw themselves.
        const last = await latestDecidingReview(context.db.pool, pull.issue_id, id);
        if (!(last?.type === ReviewType.request && id === access.viewer.id)) throw notValid("Doer can't remove reviewer", id, repoId);
      }
      checked.push({ id, official: false });
      continue;
    }
    const reviewer = await reviewerAccess(context, access, id);
    if (reviewer === undefined || !canRead(reviewer, true)) throw notValid("Reviewer can't read", id, repoId);
    if (id === pull.poster_id) throw notValid("poster of pr can't be reviewer", id, repoId);
    if (!canChange) throw notValid("Doer can't choose reviewer", id, repoId);
    checked.push({ id, official: canWriteCode(reviewer) });
  }
  return checked;
}

/** Asks the reviewers not yet asked; answers the REQUEST_REVIEW reviews made. */
export async function requestReviews(tx: DatabaseTransactionConnection, pull: PullRow, reviewers: readonly CheckedReviewer[]): Promise<ReviewRow[]> {
  const made: ReviewRow[] = [];
  for (const reviewer of reviewers) {
    const last = await latestDecidingReview(tx, pull.issue_id, reviewer.id);
    if (last?.type === ReviewType.request) continue;
    if (last !== undefined && (pull.is_closed || pull.has_merged)) {
      throw CairnError.denied('cannot request review on a closed or merged pull request', { reason: 'review_request_on_closed_pull' });
    }
    if (reviewer.official) await clearOfficial(tx, pull.issue_id, reviewer.id);
    made.push(
      await insertReview(tx, {
        repoId: pull.repo_id,
        issueId: pull.issue_id,
        reviewerId: reviewer.id,
        type: ReviewType.request,
        body: '',
        commitId: '',
        official: reviewer.official,
      }),
    );
    await addReviewRequest(tx, pull.issue_id, reviewer.id);
  }
  return made;
}

/** Withdraws the open requests of these reviewers; answers whom it withdrew from. */
export async function cancelReviews(tx: DatabaseTransactionConnection, pull: PullRow, reviewerIds: readonly number[]): Promise<number[]> {
  const removed: number[] = [];
  for (const id of reviewerIds) {
    const last = await latestDecidingReview(tx, pull.issue_id, id);
    if (last?.type !== ReviewType.request) continue;
    await deleteReviewRow(tx, last.id);
    await removeReviewRequest(tx, pull.issue_id, id);
    const latest = last.official ? await latestDecidingReview(tx, pull.issue_id, id) : undefined;
    if (latest !== undefined) await restoreOfficial(tx, latest.id);
    removed.push(id);
  }
  return removed;
}
