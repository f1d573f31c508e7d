/**
 * ReviewServiceService (proto/cairn/issues/v1/pulls_service.proto): pull-request reviews as Gitea's
 * routers/api/v1/repo/pull_review.go decides them.
 *
 * - Every call needs the pulls unit readable (else NOT_FOUND); changes need a signed-in viewer and a repository
 *   that is not archived. A review of another pull request, or someone else's pending review, is NOT_FOUND.
 * - Create: APPROVED / REQUEST_CHANGES / COMMENT, anything else PENDING (domain/review-rules.ts); a reviewer's
 *   pending review is reused (its line comments kept); line comments become code comments; the commit defaults
 *   to the head, and each keeps its diff excerpt (rpc/review-diff.ts); approvals and change requests are official
 *   as Gitea's IsOfficialReviewer decides (the base branch rule's approvals allow list, else code write), and answer
 *   the reviewer's review request and those of their teams. Approving or rejecting a closed pull request is
 *   INVALID_ARGUMENT.
 * - Submit: only a pending review, into a non-pending state. Delete: the reviewer or a site admin; never a
 *   review request. Dismiss / undismiss: repository admins, approvals and change requests of open pull requests.
 * - Requested reviewers (users and teams): rpc/review-requests.ts. Resolving a review comment's conversation: the
 *   pull request's poster, pull-request writers and official reviewers (Gitea's CanMarkConversation). Events: cairn.pull_review.submitted / .dismissed / .undismissed /
 *   .deleted, cairn.pull_request.review_requested / .review_request_removed (naming the users and the teams).
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { NewReviewComment, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { type AsyncServiceOf, actorOf, CairnError } from '@cairn/rpc';
import { rowWindow } from '../domain/issue-filters';
import { requireBodySize } from '../domain/issue-text';
import { type Access, accessOf, canWrite, isRepoAdmin, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { readablePull } from '../domain/pull-access';
import { requireReviewContent, reviewTypeOf } from '../domain/review-rules';
import { enqueuePullEvent, enqueueReviewEvent, type ReviewChange } from '../events/pull-events';
import { insertMentions, resolveMentions } from '../store/mentions';
import { CODE_COMMENT, REVIEW_COMMENT } from '../store/comments';
import { type PullRow, requirePullByIssueId, toPullRequest } from '../store/pulls';
import {
  DISMISS_REVIEW_COMMENT,
  type NewCodeComment,
  type ReviewRow,
  ReviewType,
  type ReviewTypeValue,
  addReviewRequest,
  clearOfficial,
  deleteReviewRow,
  findPendingReview,
  findRepoComment,
  findReview,
  insertCodeComments,
  insertReview,
  insertReviewTimeline,
  latestDecidingReview,
  listCodeComments,
  listReviews,
  openTeamRequests,
  removeReviewRequest,
  restoreOfficial,
  setDismissed,
  setResolver,
  submitReviewRow,
  toReview,
} from '../store/reviews';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { commentPatches } from './review-diff';
import { cancelReviews, cancelTeamReviews, checkReviewers, checkTeams, isOfficialReviewer, requestReviews, requestTeamReviews } from './review-requests';

/** Line comments per review (Gitea has no limit; this keeps one request's work bounded). */
export const MAX_REVIEW_COMMENTS = 1000;
const MAX_PATH_BYTES = 4096;

function requireLineComments(comments: readonly NewReviewComment[]): NewReviewComment[] {
  if (comments.length > MAX_REVIEW_COMMENTS) throw CairnError.invalid(`at most ${MAX_REVIEW_COMMENTS} comments per review`, { reason: 'too_many_comments' });
  for (const comment of comments) {
    if (comment.path === '' || Buffer.byteLength(comment.path) > MAX_PATH_BYTES || comment.path.includes('\u0000')) {
      throw CairnError.invalid('comment path is invalid', { reason: 'invalid_comment_path' });
    }
    for (const line of [comment.oldPosition, comment.newPosition]) {
      if (!Number.isSafeInteger(line) || line < 0) throw CairnError.invalid('comment position is invalid', { reason: 'invalid_comment_position' });
    }
    requireBodySize(comment.body);
  }
  return [...comments];
}

/** Gitea's signed line: the old side's line, negated, when one is given; else the new side's. */
function signedLine(comment: NewReviewComment): number {
  return comment.oldPosition > 0 ? -comment.oldPosition : comment.newPosition;
}

/** A review of this pull request the viewer may see (someone else's pending review is hidden, as missing). */
async function visibleReview(access: Access, pull: PullRow, id: number, db: IssuesContext['db']): Promise<ReviewRow> {
  const review = await findReview(db.pool, pull.issue_id, id);
  if (review === undefined || (review.type === ReviewType.pending && review.reviewer_id !== access.viewer.id && !access.viewer.isAdmin)) {
    throw CairnError.notFound(`review does not exist [id: ${id}]`, { reason: 'review_not_found' });
  }
  return review;
}

interface Submission {
  type: ReviewTypeValue;
  body: string;
  commitId: string;
  comments: readonly NewReviewComment[];
  /** Each comment's patch (rpc/review-diff.ts), in order. */
  patches: readonly string[];
  /** The reviewer is an official reviewer (asked of repos before the transaction). */
  official: boolean;
  /** The reviewer's teams in the repository's organization: an approval or change request answers their requests. */
  teamIds: ReadonlySet<number>;
}

/**
 * Gitea's SubmitReview: the viewer's pending review (or a new one) becomes `type`, with the line comments added;
 * approvals and change requests clear the reviewer's earlier official flags and answer their review request.
 */
async function submit(tx: DatabaseTransactionConnection, access: Access, pull: PullRow, submission: Submission): Promise<ReviewRow> {
  const reviewerId = access.viewer.id;
  const { type } = submission;
  const deciding = type === ReviewType.approve || type === ReviewType.reject;
  if (deciding && (pull.is_closed || pull.has_merged)) {
    throw CairnError.invalid("can't submit review for a closed or merged PR", { reason: 'review_on_closed_pull' });
  }
  const pending = await findPendingReview(tx, pull.issue_id, reviewerId);
  requireReviewContent(type, submission.body, (pending?.comments_count ?? 0) + submission.comments.length);
  if (deciding) await clearOfficial(tx, pull.issue_id, reviewerId);
  const values = { type, body: submission.body, commitId: submission.commitId, official: deciding && submission.official };
  const review =
    pending === undefined
      ? await insertReview(tx, { ...values, repoId: pull.repo_id, issueId: pull.issue_id, reviewerId })
      : await submitReviewRow(tx, pending.id, values);
  const comments: NewCodeComment[] = submission.comments.map((comment, i) => ({
    repoId: pull.repo_id,
    issueId: pull.issue_id,
    reviewId: review.id,
    posterId: reviewerId,
    body: comment.body,
    path: comment.path,
    line: signedLine(comment),
    commitId: submission.commitId,
    patch: submission.patches[i] ?? '',
  }));
  await insertCodeComments(tx, comments);
  if (type === ReviewType.pending) return (await findReview(tx, pull.issue_id, review.id)) ?? review;
  await insertReviewTimeline(tx, {
    repoId: pull.repo_id,
    issueId: pull.issue_id,
    reviewId: review.id,
    posterId: reviewerId,
    type: REVIEW_COMMENT,
    body: submission.body,
    commitId: submission.commitId,
  });
  if (deciding) {
    await removeReviewRequest(tx, pull.issue_id, reviewerId);
    // Gitea's SubmitReview: the requests of the reviewer's teams are answered too.
    for (const request of await openTeamRequests(tx, pull.issue_id)) {
      if (submission.teamIds.has(request.teamId)) await deleteReviewRow(tx, request.id);
    }
  }
  return (await findReview(tx, pull.issue_id, review.id)) ?? review;
}

async function reviewEvent(
  tx: DatabaseTransactionConnection,
  access: Access,
  pull: PullRow,
  review: ReviewRow,
  change: ReviewChange,
  mentionedUserIds: readonly number[] = [],
): Promise<void> {
  const message = await toPullRequest(tx, await requirePullByIssueId(tx, pull.issue_id));
  await enqueueReviewEvent(tx, change, { actorId: access.viewer.id, pull: message, review: toReview(review), repoPrivate: access.repository.private, mentionedUserIds });
}

export function createReviewService(context: IssuesContext): AsyncServiceOf<typeof ReviewServiceService> {
  const { db } = context;

  /**
   * What a submission of `type` needs from other services, asked before its transaction: whether the viewer is an
   * official reviewer, and (when teams wait for an answer) the viewer's teams in the organization.
   */
  async function reviewerFacts(access: Access, pull: PullRow, type: ReviewTypeValue): Promise<Pick<Submission, 'official' | 'teamIds'>> {
    if (type !== ReviewType.approve && type !== ReviewType.reject) return { official: false, teamIds: new Set() };
    const official = await isOfficialReviewer(context, pull.repo_id, pull.base_branch, actorOf(access.viewer));
    if ((await openTeamRequests(db.pool, pull.issue_id)).length === 0) return { official, teamIds: new Set() };
    const { teams } = await context.teams.listUserTeams({ userId: access.viewer.id, orgId: access.repository.ownerId });
    return { official, teamIds: new Set(teams.map((team) => team.teamId)) };
  }

  /** The pull request for a change: signed in, not archived, readable. */
  async function pullForChange(access: Access, index: number): Promise<PullRow> {
    requireSignedIn(access);
    requireNotArchived(access);
    return guard(() => readablePull(db.pool, access, index));
  }

  async function dismissal(request: { scope?: Parameters<typeof accessOf>[0]; index: number; id: number }, dismissed: boolean, message: string, priors: boolean) {
    const access = accessOf(request.scope);
    requireSignedIn(access);
    if (!isRepoAdmin(access)) throw CairnError.denied('Must be repo admin', { reason: 'not_repo_admin' });
    requireNotArchived(access);
    const pull = await guard(() => readablePull(db.pool, access, request.index));
    const review = await guard(() => visibleReview(access, pull, request.id, db));
    if (review.type !== ReviewType.approve && review.type !== ReviewType.reject) {
      throw CairnError.denied('not allowed to dismiss this review type', { reason: 'review_not_dismissable' });
    }
    if (pull.is_closed) throw CairnError.denied('not allowed to dismiss review of a closed PR', { reason: 'pull_closed' });
    const after = await guard(() =>
      db.pool.transaction(async (tx) => {
        // Gitea changes nothing (and tells no one) when the review already is as asked.
        if (review.dismissed === dismissed) return review;
        const changed = await setDismissed(tx, review, dismissed, priors);
        if (dismissed) {
          await insertReviewTimeline(tx, {
            repoId: pull.repo_id,
            issueId: pull.issue_id,
            reviewId: review.id,
            posterId: access.viewer.id,
            type: DISMISS_REVIEW_COMMENT,
            body: message,
            commitId: '',
          });
        }
        await reviewEvent(tx, access, pull, changed, dismissed ? 'dismissed' : 'undismissed');
        return changed;
      }),
    );
    return { review: toReview(after) };
  }

  return {
    async createReview(request) {
      const access = accessOf(request.scope);
      const pull = await pullForChange(access, request.index);
      requireBodySize(request.body);
      const comments = requireLineComments(request.comments);
      if (request.commitId !== '' && !/^[0-9a-fA-F]{4,64}$/.test(request.commitId)) {
        throw CairnError.invalid('commit_id is not a commit id', { reason: 'invalid_commit_id' });
      }
      const type = reviewTypeOf(request.state, { isPoster: pull.poster_id === access.viewer.id, body: request.body, hasComments: comments.length > 0 });
      const facts = await guard(() => reviewerFacts(access, pull, type));
      const patches = await commentPatches(context, access, pull, comments);
      // Gitea's SubmitReview: the review's text and its line comments may mention users (asked before the transaction).
      const mentioned =
        type === ReviewType.pending ? [] : await guard(() => resolveMentions(context, [request.body, ...comments.map((comment) => comment.body)].join('\n'), access.viewer));
      const review = await guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await requirePullByIssueId(tx, pull.issue_id, true);
          const commitId = request.commitId !== '' ? request.commitId : current.head_commit_id;
          const made = await submit(tx, access, current, { type, body: request.body, commitId, comments, patches, ...facts });
          if (type !== ReviewType.pending) await reviewEvent(tx, access, current, made, 'submitted', await insertMentions(tx, pull.issue_id, mentioned));
          return made;
        }),
      );
      return { review: toReview(review) };
    },

    async submitReview(request) {
      const access = accessOf(request.scope);
      const pull = await pullForChange(access, request.index);
      requireBodySize(request.body);
      const pending = await guard(() => visibleReview(access, pull, request.id, db));
      if (pending.type !== ReviewType.pending) throw CairnError.invalid('only a pending review can be submitted', { reason: 'review_not_pending' });
      const type = reviewTypeOf(request.state, { isPoster: pull.poster_id === access.viewer.id, body: request.body, hasComments: pending.comments_count > 0 });
      if (type === ReviewType.pending) throw CairnError.invalid('review stay pending', { reason: 'review_stays_pending' });
      const facts = await guard(() => reviewerFacts(access, pull, type));
      const mentioned = await guard(() => resolveMentions(context, request.body, access.viewer));
      const review = await guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await requirePullByIssueId(tx, pull.issue_id, true);
          // Only the reviewer's own pending review is submitted (a site admin sees others' but submits their own).
          if (pending.reviewer_id !== access.viewer.id) throw CairnError.notFound(`review does not exist [id: ${request.id}]`, { reason: 'review_not_found' });
          const made = await submit(tx, access, current, { type, body: request.body, commitId: current.head_commit_id, comments: [], patches: [], ...facts });
          await reviewEvent(tx, access, current, made, 'submitted', await insertMentions(tx, pull.issue_id, mentioned));
          return made;
        }),
      );
      return { review: toReview(review) };
    },

    async listReviews(request) {
      const access = accessOf(request.scope);
      const window = rowWindow(request.page);
      return guard(async () => {
        const pull = await readablePull(db.pool, access, request.index);
        const page = await listReviews(db.pool, { issueId: pull.issue_id, viewerId: access.viewer.id, seeAll: access.viewer.isAdmin, ...window });
        return { reviews: page.rows.map(toReview), total: page.total };
      });
    },

    async getReview(request) {
      const access = accessOf(request.scope);
      const review = await guard(async () => visibleReview(access, await readablePull(db.pool, access, request.index), request.id, db));
      return { review: toReview(review) };
    },

    async deleteReview(request) {
      const access = accessOf(request.scope);
      const pull = await pullForChange(access, request.index);
      const review = await guard(() => visibleReview(access, pull, request.id, db));
      if (!access.viewer.isAdmin && access.viewer.id !== review.reviewer_id) {
        throw CairnError.denied('only admin and user itself can delete a review', { reason: 'review_delete_forbidden' });
      }
      if (review.type === ReviewType.request) {
        throw CairnError.invalid('review request can not be deleted using this method', { reason: 'review_is_request' });
      }
      await guard(() =>
        db.pool.transaction(async (tx) => {
          await deleteReviewRow(tx, review.id);
          // Gitea's restoreLatestOfficialReview, and the request the deleted review had answered is open again.
          const latest = await latestDecidingReview(tx, pull.issue_id, review.reviewer_id);
          if (review.official && latest !== undefined) await restoreOfficial(tx, latest.id);
          if (latest?.type === ReviewType.request) await addReviewRequest(tx, pull.issue_id, review.reviewer_id);
          if (review.type !== ReviewType.pending) await reviewEvent(tx, access, pull, review, 'deleted');
        }),
      );
      return {};
    },

    async listReviewComments(request) {
      const access = accessOf(request.scope);
      const comments = await guard(async () => {
        const review = await visibleReview(access, await readablePull(db.pool, access, request.index), request.id, db);
        return listCodeComments(db.pool, review.id);
      });
      return { comments };
    },

    async requestReviewers(request) {
      const access = accessOf(request.scope);
      const pull = await pullForChange(access, request.index);
      const reviewers = await checkReviewers(context, access, pull, request.reviewerIds, true);
      const teams = await checkTeams(context, access, pull, request.teamNames, true);
      const made = await guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await requirePullByIssueId(tx, pull.issue_id, true);
          const reviews = await requestReviews(tx, current, reviewers, access.viewer.id);
          const teamReviews = await requestTeamReviews(tx, current, teams, access.viewer.id);
          // One event for the users and teams newly asked; consumers fan a team out to its members (as Gitea does).
          if (reviews.length > 0 || teamReviews.length > 0) {
            const message = await toPullRequest(tx, current);
            await enqueuePullEvent(tx, 'review_requested', {
              actorId: access.viewer.id,
              pull: message,
              repoPrivate: access.repository.private,
              reviewerIds: reviews.map((review) => review.reviewer_id),
              reviewerTeamIds: teamReviews.map((review) => review.reviewer_team_id),
            });
          }
          return [...reviews, ...teamReviews];
        }),
      );
      return { reviews: made.map(toReview) };
    },

    async cancelReviewRequests(request) {
      const access = accessOf(request.scope);
      const pull = await pullForChange(access, request.index);
      const reviewers = await checkReviewers(context, access, pull, request.reviewerIds, false);
      const teams = await checkTeams(context, access, pull, request.teamNames, false);
      await guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await requirePullByIssueId(tx, pull.issue_id, true);
          const removedTeams = await cancelTeamReviews(tx, current, teams, access.viewer.id);
          const removed = await cancelReviews(
            tx,
            current,
            reviewers.map((reviewer) => reviewer.id),
            access.viewer.id,
          );
          if (removed.length > 0 || removedTeams.length > 0) {
            const message = await toPullRequest(tx, current);
            await enqueuePullEvent(tx, 'review_request_removed', {
              actorId: access.viewer.id,
              pull: message,
              repoPrivate: access.repository.private,
              reviewerIds: removed,
              reviewerTeamIds: removedTeams,
            });
          }
        }),
      );
      return {};
    },

    dismissReview: (request) => dismissal(request, true, request.message, request.priors),
    undismissReview: (request) => dismissal(request, false, '', false),

    async resolveReviewComment(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      const comment = await guard(() => findRepoComment(db.pool, access.repository.id, request.id));
      if (comment === undefined) throw CairnError.notFound(`comment does not exist [id: ${request.id}]`, { reason: 'comment_not_found' });
      // Review comments are on pull requests only; the comment's must be readable.
      if (comment.type !== CODE_COMMENT) throw CairnError.invalid('comment is not a review comment', { reason: 'not_review_comment' });
      const pull = await guard(async () => readablePull(db.pool, access, (await requirePullByIssueId(db.pool, comment.issue_id)).index));
      // Gitea's CanMarkConversation: never in an archived repository; the poster, pull-request writers, official reviewers.
      const allowed =
        !access.repository.archived &&
        (viewerId === pull.poster_id ||
          canWrite(access, true) ||
          (await isOfficialReviewer(context, access.repository.id, pull.base_branch, actorOf(access.viewer))));
      if (!allowed) throw CairnError.denied('user should have permission to resolve comment', { reason: 'resolve_forbidden' });
      // Gitea's MarkConversation changes nothing when the conversation already is as asked.
      if (request.resolve && comment.resolve_doer_id === 0) await guard(() => setResolver(db.pool, comment.id, viewerId));
      if (!request.resolve && comment.resolve_doer_id !== 0) await guard(() => setResolver(db.pool, comment.id, 0));
      return {};
    },
  };
}
