/**
 * The `reviews` table (Gitea's review), review comments (`comments` rows of type 21 with a review), the reviews'
 * timeline entries, and `review_requests` (the reviewers asked and not yet answered; issue search's
 * review_requested filter reads it). A team's review request is a `reviews` row with the team and no reviewer
 * (migration 0005), deleted when answered or withdrawn. Review comments keep their diff excerpt (`patch`) and who
 * resolved their conversation (`resolve_doer_id`).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { Review, ReviewComment } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { diffHunkOf } from '../domain/diff-hunk';
import { CODE_COMMENT, REVIEW_COMMENT } from './comments';

/** Gitea's ReviewType. */
export const ReviewType = { pending: 0, approve: 1, comment: 2, reject: 3, request: 4 } as const;
export type ReviewTypeValue = (typeof ReviewType)[keyof typeof ReviewType];

const STATE_OF: Readonly<Record<number, string>> = {
  [ReviewType.pending]: 'PENDING',
  [ReviewType.approve]: 'APPROVED',
  [ReviewType.comment]: 'COMMENT',
  [ReviewType.reject]: 'REQUEST_CHANGES',
  [ReviewType.request]: 'REQUEST_REVIEW',
};

/** Gitea's CommentTypeDismissReview: the timeline entry of a dismissal, with its message. */
export const DISMISS_REVIEW_COMMENT = 32;

export const reviewRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  issue_id: z.number(),
  /** 0 for a team's review request. */
  reviewer_id: z.number(),
  /** A team's review request: the team (else 0). */
  reviewer_team_id: z.number(),
  type: z.number(),
  body: z.string(),
  commit_id: z.string(),
  official: z.boolean(),
  dismissed: z.boolean(),
  /** The pull request's head has moved past the commit the review was made on. */
  stale: z.boolean(),
  comments_count: z.number(),
  /** The review's timeline comment (type 22), 0 when it has none. */
  timeline_comment_id: z.number(),
  created: z.date(),
  updated: z.date(),
});
export type ReviewRow = z.infer<typeof reviewRow>;

/** `reviewRow` over `reviews r` (staleness against the pull request's current head). */
const REVIEW_COLUMNS = sql.fragment`r.id, r.repo_id, r.issue_id, r.reviewer_id, r.reviewer_team_id, r.type, r.body, r.commit_id, r.official, r.dismissed,
  (r.commit_id <> '' AND p.head_commit_id <> '' AND r.commit_id <> p.head_commit_id) AS stale,
  (SELECT count(*) FROM comments c WHERE c.review_id = r.id AND c.type = ${CODE_COMMENT})::int8 AS comments_count,
  COALESCE((SELECT min(c.id) FROM comments c WHERE c.review_id = r.id AND c.type = ${REVIEW_COMMENT}), 0)::int8 AS timeline_comment_id,
  r.created, r.updated`;
const REVIEWS = sql.fragment`reviews r JOIN pull_requests p ON p.issue_id = r.issue_id`;

export function toReview(row: ReviewRow): Review {
  return {
    id: row.id,
    issueId: row.issue_id,
    reviewerId: row.reviewer_id,
    state: STATE_OF[row.type] ?? '',
    body: row.body,
    commitId: row.commit_id,
    official: row.official,
    stale: row.stale,
    dismissed: row.dismissed,
    commentsCount: row.comments_count,
    submitted: row.created,
    updated: row.updated,
    reviewerTeamId: row.reviewer_team_id,
    timelineCommentId: row.timeline_comment_id,
  };
}

export async function findReview(db: CommonQueryMethods, issueId: number, id: number): Promise<ReviewRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const row = await db.maybeOne(sql.type(reviewRow)`SELECT ${REVIEW_COLUMNS} FROM ${REVIEWS} WHERE r.issue_id = ${issueId} AND r.id = ${id}`);
  return row ?? undefined;
}

async function requireReview(db: CommonQueryMethods, id: number): Promise<ReviewRow> {
  return db.one(sql.type(reviewRow)`SELECT ${REVIEW_COLUMNS} FROM ${REVIEWS} WHERE r.id = ${id}`);
}

/** The reviewer's pending review of the pull request, locked (Gitea's GetCurrentReview). */
export async function findPendingReview(tx: DatabaseTransactionConnection, issueId: number, reviewerId: number): Promise<ReviewRow | undefined> {
  const row = await tx.maybeOne(sql.type(z.object({ id: z.number() }))`
    SELECT id FROM reviews WHERE issue_id = ${issueId} AND reviewer_id = ${reviewerId} AND type = ${ReviewType.pending} FOR UPDATE`);
  return row === null ? undefined : requireReview(tx, row.id);
}

/**
 * The reviewer's latest approval, change request or review request (Gitea's GetReviewByIssueIDAndUserID): what
 * decides whether they are still asked to review.
 */
export async function latestDecidingReview(db: CommonQueryMethods, issueId: number, reviewerId: number): Promise<ReviewRow | undefined> {
  const row = await db.maybeOne(sql.type(reviewRow)`
    SELECT ${REVIEW_COLUMNS} FROM ${REVIEWS}
    WHERE r.issue_id = ${issueId} AND r.reviewer_id = ${reviewerId}
      AND r.type IN (${ReviewType.approve}, ${ReviewType.reject}, ${ReviewType.request})
    ORDER BY r.id DESC LIMIT 1`);
  return row ?? undefined;
}

/**
 * The pull request's reviews, oldest first; pending reviews only for their reviewer (and site admins, `seeAll`),
 * as Gitea's ToPullReviewList shows them.
 */
export async function listReviews(
  db: CommonQueryMethods,
  query: { issueId: number; viewerId: number; seeAll: boolean; skip: number; limit: number },
): Promise<{ rows: ReviewRow[]; total: number }> {
  const visible = query.seeAll ? sql.fragment`TRUE` : sql.fragment`(r.type <> ${ReviewType.pending} OR r.reviewer_id = ${query.viewerId})`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(reviewRow)`
      SELECT ${REVIEW_COLUMNS} FROM ${REVIEWS} WHERE r.issue_id = ${query.issueId} AND ${visible}
      ORDER BY r.id LIMIT ${query.limit} OFFSET ${query.skip}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int8 AS count FROM reviews r WHERE r.issue_id = ${query.issueId} AND ${visible}`),
  ]);
  return { rows: [...rows], total };
}

export interface ReviewValues {
  type: ReviewTypeValue;
  body: string;
  commitId: string;
  official: boolean;
}

export async function insertReview(
  tx: DatabaseTransactionConnection,
  review: ReviewValues & { repoId: number; issueId: number; reviewerId: number },
): Promise<ReviewRow> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO reviews (repo_id, issue_id, reviewer_id, type, body, commit_id, official)
    VALUES (${review.repoId}, ${review.issueId}, ${review.reviewerId}, ${review.type}, ${review.body}, ${review.commitId}, ${review.official})
    RETURNING id`);
  return requireReview(tx, id);
}

/** Turns a (pending) review into `values`; it counts as submitted now. */
export async function submitReviewRow(tx: DatabaseTransactionConnection, id: number, values: ReviewValues): Promise<ReviewRow> {
  await tx.query(sql.unsafe`
    UPDATE reviews SET type = ${values.type}, body = ${values.body}, commit_id = ${values.commitId}, official = ${values.official},
      created = now(), updated = now()
    WHERE id = ${id}`);
  return requireReview(tx, id);
}

/** Only a reviewer's latest approval or change request counts as official (Gitea clears the earlier ones). */
export async function clearOfficial(tx: DatabaseTransactionConnection, issueId: number, reviewerId: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE reviews SET official = false WHERE issue_id = ${issueId} AND reviewer_id = ${reviewerId} AND official`);
}

/** The reviewer's latest approval, change request or request counts again (Gitea's restoreLatestOfficialReview). */
export async function restoreOfficial(tx: DatabaseTransactionConnection, reviewId: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE reviews SET official = true WHERE id = ${reviewId}`);
}

/** Dismisses or undismisses review `id`; with `priors`, also the reviewer's earlier approvals and change requests. */
export async function setDismissed(tx: DatabaseTransactionConnection, review: ReviewRow, dismissed: boolean, priors: boolean): Promise<ReviewRow> {
  await tx.query(sql.unsafe`UPDATE reviews SET dismissed = ${dismissed}, updated = now() WHERE id = ${review.id}`);
  if (dismissed && priors) {
    await tx.query(sql.unsafe`
      UPDATE reviews SET dismissed = true, updated = now()
      WHERE issue_id = ${review.issue_id} AND reviewer_id = ${review.reviewer_id} AND id < ${review.id} AND NOT dismissed
        AND type IN (${ReviewType.approve}, ${ReviewType.reject})`);
  }
  return requireReview(tx, review.id);
}

/** Deletes the review; its code comments and timeline entries go with it (foreign key). */
export async function deleteReviewRow(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM reviews WHERE id = ${id}`);
}

/** A timeline entry of a review (type 22, the review's body) or of its dismissal (type 32, the message). */
export async function insertReviewTimeline(
  tx: DatabaseTransactionConnection,
  entry: { repoId: number; issueId: number; reviewId: number; posterId: number; type: typeof REVIEW_COMMENT | typeof DISMISS_REVIEW_COMMENT; body: string; commitId: string },
): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO comments (repo_id, issue_id, type, poster_id, body, review_id, commit_sha)
    VALUES (${entry.repoId}, ${entry.issueId}, ${entry.type}, ${entry.posterId}, ${entry.body}, ${entry.reviewId}, ${entry.commitId})`);
}

export interface NewCodeComment {
  repoId: number;
  issueId: number;
  reviewId: number;
  posterId: number;
  body: string;
  path: string;
  /** Gitea's signed line: negative on the old side. */
  line: number;
  commitId: string;
  /** Gitea's patch: the file's diff headers and the hunk cut around the line (domain/diff-hunk.ts). */
  patch: string;
}

export async function insertCodeComments(tx: DatabaseTransactionConnection, comments: readonly NewCodeComment[]): Promise<void> {
  for (const c of comments) {
    await tx.query(sql.unsafe`
      INSERT INTO comments (repo_id, issue_id, type, poster_id, body, review_id, tree_path, line, commit_sha, old_ref, patch)
      VALUES (${c.repoId}, ${c.issueId}, ${CODE_COMMENT}, ${c.posterId}, ${c.body}, ${c.reviewId}, ${c.path}, ${c.line}, ${c.commitId}, ${c.commitId}, ${c.patch})`);
  }
}

const codeCommentRow = z.object({
  id: z.number(),
  review_id: z.number(),
  poster_id: z.number(),
  body: z.string(),
  tree_path: z.string(),
  line: z.number(),
  commit_sha: z.string(),
  old_ref: z.string(),
  patch: z.string(),
  resolve_doer_id: z.number(),
  created: z.date(),
  updated: z.date(),
});

export async function listCodeComments(db: CommonQueryMethods, reviewId: number): Promise<ReviewComment[]> {
  const rows = await db.any(sql.type(codeCommentRow)`
    SELECT id, review_id, poster_id, body, tree_path, line, commit_sha, old_ref, patch, resolve_doer_id, created, updated
    FROM comments WHERE review_id = ${reviewId} AND type = ${CODE_COMMENT} ORDER BY created, id`);
  return rows.map((row) => ({
    id: row.id,
    reviewId: row.review_id,
    posterId: row.poster_id,
    body: row.body,
    path: row.tree_path,
    commitId: row.commit_sha,
    originalCommitId: row.old_ref,
    // Gitea's PullReviewComment: position is the new side's line, original_position the old side's.
    position: row.line > 0 ? row.line : 0,
    originalPosition: row.line < 0 ? -row.line : 0,
    diffHunk: diffHunkOf(row.patch),
    created: row.created,
    updated: row.updated,
    resolverId: row.resolve_doer_id,
  }));
}

/** Asks `reviewerId` to review (answers false when already asked). */
export async function addReviewRequest(tx: DatabaseTransactionConnection, issueId: number, reviewerId: number): Promise<boolean> {
  const rows = await tx.any(sql.type(z.object({ reviewer_id: z.number() }))`
    INSERT INTO review_requests (issue_id, reviewer_id) VALUES (${issueId}, ${reviewerId}) ON CONFLICT DO NOTHING RETURNING reviewer_id`);
  return rows.length > 0;
}

/** The request is answered or withdrawn (answers false when there was none). */
export async function removeReviewRequest(tx: DatabaseTransactionConnection, issueId: number, reviewerId: number): Promise<boolean> {
  const rows = await tx.any(sql.type(z.object({ reviewer_id: z.number() }))`
    DELETE FROM review_requests WHERE issue_id = ${issueId} AND reviewer_id = ${reviewerId} RETURNING reviewer_id`);
  return rows.length > 0;
}

/** The team's latest review row on the pull request (Gitea's GetTeamReviewerByIssueIDAndTeamID): its open request. */
export async function findTeamRequest(db: CommonQueryMethods, issueId: number, teamId: number): Promise<ReviewRow | undefined> {
  const row = await db.maybeOne(sql.type(reviewRow)`
    SELECT ${REVIEW_COLUMNS} FROM ${REVIEWS} WHERE r.issue_id = ${issueId} AND r.reviewer_team_id = ${teamId} ORDER BY r.id DESC LIMIT 1`);
  return row ?? undefined;
}

/** Asks a team to review: a REQUEST_REVIEW review with the team and no reviewer. */
export async function insertTeamRequest(tx: DatabaseTransactionConnection, request: { repoId: number; issueId: number; teamId: number; official: boolean }): Promise<ReviewRow> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO reviews (repo_id, issue_id, reviewer_id, reviewer_team_id, type, official)
    VALUES (${request.repoId}, ${request.issueId}, 0, ${request.teamId}, ${ReviewType.request}, ${request.official})
    RETURNING id`);
  return requireReview(tx, id);
}

/** Gitea's AddTeamReviewRequest ends by clearing the team's official flags: the request just made included. */
export async function clearTeamOfficial(tx: DatabaseTransactionConnection, issueId: number, teamId: number): Promise<void> {
  await tx.query(sql.unsafe`UPDATE reviews SET official = false WHERE issue_id = ${issueId} AND reviewer_team_id = ${teamId} AND official`);
}

/** The open team requests of a pull request, by team id (Gitea's SubmitReview answers those of the reviewer's teams). */
export async function openTeamRequests(db: CommonQueryMethods, issueId: number): Promise<Array<{ id: number; teamId: number }>> {
  const rows = await db.any(sql.type(z.object({ id: z.number(), reviewer_team_id: z.number() }))`
    SELECT id, reviewer_team_id FROM reviews WHERE issue_id = ${issueId} AND reviewer_team_id > 0 AND type = ${ReviewType.request} ORDER BY id`);
  return rows.map((row) => ({ id: row.id, teamId: row.reviewer_team_id }));
}

const resolvableRow = z.object({ id: z.number(), issue_id: z.number(), type: z.number(), resolve_doer_id: z.number() });
export type ResolvableComment = z.infer<typeof resolvableRow>;

/** A comment of the repository, any type (NOT_FOUND is the caller's), for resolving its conversation. */
export async function findRepoComment(db: CommonQueryMethods, repoId: number, id: number): Promise<ResolvableComment | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const row = await db.maybeOne(sql.type(resolvableRow)`
    SELECT id, issue_id, type, resolve_doer_id FROM comments WHERE id = ${id} AND repo_id = ${repoId}`);
  return row ?? undefined;
}

/** Gitea's MarkConversation: who resolved the conversation, 0 to unresolve. */
export async function setResolver(db: CommonQueryMethods, id: number, resolverId: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE comments SET resolve_doer_id = ${resolverId} WHERE id = ${id}`);
}
