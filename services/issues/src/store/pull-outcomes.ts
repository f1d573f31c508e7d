/**
 * What mergeability checks and merges record beyond the status (store/pulls.ts updatePullStatus): a merge (Gitea's
 * SetMerged), the open pull requests a push touches, the reviews the merge checks count, and stale approvals
 * dismissed when the head moves under a rule that asks for it.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { ReviewFacts } from '../domain/merge-rules';
import { PULL_COLUMNS, pullRow, requirePullByIssueId, type PullRow, type PullStatus } from './pulls';
import { ReviewType } from './reviews';

export interface MergeRecord {
  commitId: string;
  mergerId: number;
  /** The style ("manually-merged" for manual merges and detected ones). */
  style: string;
  /** manually_merged for manual merges; otherwise the status stays. */
  status?: PullStatus;
  /** When it was merged: a detected manual merge's commit time; unset is now. */
  mergedAt?: Date;
}

/** Marks the pull request merged (the caller closes its issue in the same transaction). */
export async function recordMerge(tx: DatabaseTransactionConnection, issueId: number, merge: MergeRecord): Promise<PullRow> {
  await tx.query(sql.unsafe`
    UPDATE pull_requests
    SET has_merged = true, merged_commit_id = ${merge.commitId}, merger_id = ${merge.mergerId},
        merged_at = ${merge.mergedAt === undefined ? sql.fragment`now()` : sql.timestamp(merge.mergedAt)},
        merge_style = ${merge.style}, status = ${merge.status ?? sql.fragment`status`}
    WHERE issue_id = ${issueId}`);
  return requirePullByIssueId(tx, issueId);
}

/** Open, unmerged pull requests a push to `branch` of `repoId` touches: into it (base) or from it (head). */
export async function findOpenPullsTouchedBy(db: CommonQueryMethods, repoId: number, branches: readonly string[]): Promise<PullRow[]> {
  if (branches.length === 0) return [];
  const names = sql.array([...branches], 'text');
  const rows = await db.any(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id
    WHERE NOT i.is_closed AND NOT p.has_merged
      AND ((i.repo_id = ${repoId} AND p.base_branch = ANY(${names})) OR (p.head_repo_id = ${repoId} AND p.head_branch = ANY(${names})))
    ORDER BY p.issue_id`);
  return [...rows];
}

/** Whether another open, unmerged pull request has this head (Gitea's HasUnmergedPullRequestsByHeadInfo). */
export async function hasOtherOpenPullFromHead(db: CommonQueryMethods, issueId: number, headRepoId: number, headBranch: string): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM pull_requests p JOIN issues i ON i.id = p.issue_id
    WHERE p.head_repo_id = ${headRepoId} AND p.head_branch = ${headBranch} AND p.issue_id <> ${issueId}
      AND NOT i.is_closed AND NOT p.has_merged`);
}

/** Gitea's ReviewType numbers → the API's states the rules read. */
const REVIEW_STATES: Readonly<Record<number, string>> = {
  [ReviewType.approve]: 'APPROVED',
  [ReviewType.reject]: 'REQUEST_CHANGES',
  [ReviewType.request]: 'REQUEST_REVIEW',
};
const COUNTED_TYPES = [ReviewType.approve, ReviewType.reject, ReviewType.request];

const reviewFactsRow = z.object({ reviewer_id: z.number(), type: z.number(), official: z.boolean(), dismissed: z.boolean(), commit_id: z.string() });

/** The approvals, change requests and review requests of a pull request; stale = made on another head than `headCommitId`. */
export async function reviewFactsOf(db: CommonQueryMethods, issueId: number, headCommitId: string): Promise<ReviewFacts[]> {
  const rows = await db.any(sql.type(reviewFactsRow)`
    SELECT reviewer_id, type, official, dismissed, commit_id FROM reviews WHERE issue_id = ${issueId} AND type = ANY(${sql.array(COUNTED_TYPES, 'int2')}) ORDER BY id`);
  return rows.map((row) => ({
    reviewerId: row.reviewer_id,
    state: REVIEW_STATES[row.type] ?? '',
    official: row.official,
    dismissed: row.dismissed,
    // A review request is about no commit; approvals and change requests go stale when the head moves.
    stale: row.type !== ReviewType.request && row.commit_id !== headCommitId,
  }));
}

/** Gitea's DismissApprovalReviews on a push under `dismiss_stale_approvals`: approvals of another head are dismissed. */
export async function dismissStaleApprovals(tx: DatabaseTransactionConnection, issueId: number, headCommitId: string): Promise<number> {
  const dismissed = await tx.anyFirst(sql.type(z.object({ id: z.number() }))`
    UPDATE reviews SET dismissed = true, updated = now()
    WHERE issue_id = ${issueId} AND type = ${ReviewType.approve} AND NOT dismissed AND commit_id <> ${headCommitId}
    RETURNING id`);
  return dismissed.length;
}
