/**
 * The `pull_requests` table: a pull request's row (with its issue's repository, number and state, read together
 * over `pull_requests p JOIN issues i`), lookups by number and by branches, status and column changes, the list of
 * a repository's pull requests, and rows made into PullRequest messages (issue, requested reviewers) in one query
 * per kind for the whole batch.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import type { PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { findIssuesByIds, toIssues } from './issues';

export const PULL_STATUSES = ['checking', 'conflict', 'mergeable', 'empty', 'ancestor', 'manually_merged', 'error'] as const;
export type PullStatus = (typeof PULL_STATUSES)[number];

export const pullRow = z.object({
  issue_id: z.number(),
  /** The base repository (the issue's). */
  repo_id: z.number(),
  index: z.number(),
  poster_id: z.number(),
  is_closed: z.boolean(),
  head_repo_id: z.number(),
  head_branch: z.string(),
  base_branch: z.string(),
  merge_base: z.string(),
  head_commit_id: z.string(),
  status: z.enum(PULL_STATUSES),
  conflicted_files: z.array(z.string()),
  has_merged: z.boolean(),
  merged_commit_id: z.string(),
  merger_id: z.number(),
  merged_at: z.date().nullable(),
  allow_maintainer_edit: z.boolean(),
  merge_style: z.string(),
});
export type PullRow = z.infer<typeof pullRow>;

/** The columns of `pullRow` over `pull_requests p` joined with `issues i`. */
export const PULL_COLUMNS = sql.fragment`p.issue_id, i.repo_id, i.index, i.poster_id, i.is_closed, p.head_repo_id, p.head_branch,
  p.base_branch, p.merge_base, p.head_commit_id, p.status, p.conflicted_files, p.has_merged, p.merged_commit_id, p.merger_id,
  p.merged_at, p.allow_maintainer_edit, p.merge_style`;

export interface NewPull {
  issueId: number;
  headRepoId: number;
  headBranch: string;
  baseBranch: string;
}

export async function insertPull(tx: DatabaseTransactionConnection, pull: NewPull): Promise<PullRow> {
  await tx.query(sql.unsafe`
    INSERT INTO pull_requests (issue_id, head_repo_id, head_branch, base_branch)
    VALUES (${pull.issueId}, ${pull.headRepoId}, ${pull.headBranch}, ${pull.baseBranch})`);
  return requirePullByIssueId(tx, pull.issueId);
}

export async function findPullByIndex(db: CommonQueryMethods, repoId: number, index: number): Promise<PullRow | undefined> {
  const row = await db.maybeOne(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = ${repoId} AND i.index = ${index}`);
  return row ?? undefined;
}

/** The pull request of issue `issueId`, which the caller knows exists (locked with `lock`). */
export async function requirePullByIssueId(db: CommonQueryMethods, issueId: number, lock = false): Promise<PullRow> {
  return db.one(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE p.issue_id = ${issueId}
    ${lock ? sql.fragment`FOR UPDATE OF p` : sql.fragment``}`);
}

/** An open pull request of repository `repoId` from `headBranch` of `headRepoId` into `baseBranch` (Gitea's GetUnmergedPullRequest). */
export async function findOpenPullForTargets(
  db: CommonQueryMethods,
  target: { repoId: number; headRepoId: number; headBranch: string; baseBranch: string },
): Promise<PullRow | undefined> {
  const row = await db.maybeOne(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id
    WHERE i.repo_id = ${target.repoId} AND p.head_repo_id = ${target.headRepoId} AND p.head_branch = ${target.headBranch}
      AND p.base_branch = ${target.baseBranch} AND NOT i.is_closed AND NOT p.has_merged
    ORDER BY i.index DESC LIMIT 1`);
  return row ?? undefined;
}

/** The newest pull request of repository `repoId` from its own `headBranch` into `baseBranch`. */
export async function findNewestPullByBranches(
  db: CommonQueryMethods,
  repoId: number,
  baseBranch: string,
  head: { repoId: number; branch: string },
): Promise<PullRow | undefined> {
  const row = await db.maybeOne(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id
    WHERE i.repo_id = ${repoId} AND p.head_repo_id = ${head.repoId} AND p.head_branch = ${head.branch} AND p.base_branch = ${baseBranch}
    ORDER BY i.index DESC LIMIT 1`);
  return row ?? undefined;
}

/** What a mergeability check found. Unset fields stay. */
export interface PullStatusChange {
  status: PullStatus;
  mergeBase?: string;
  headCommitId?: string;
  conflictedFiles?: readonly string[];
}

export async function updatePullStatus(tx: DatabaseTransactionConnection, issueId: number, change: PullStatusChange): Promise<PullRow> {
  const sets: FragmentSqlToken[] = [sql.fragment`status = ${change.status}`];
  if (change.mergeBase !== undefined) sets.push(sql.fragment`merge_base = ${change.mergeBase}`);
  if (change.headCommitId !== undefined) sets.push(sql.fragment`head_commit_id = ${change.headCommitId}`);
  if (change.conflictedFiles !== undefined) sets.push(sql.fragment`conflicted_files = ${sql.array([...change.conflictedFiles], 'text')}`);
  await tx.query(sql.unsafe`UPDATE pull_requests SET ${sql.join(sets, sql.fragment`, `)} WHERE issue_id = ${issueId}`);
  return requirePullByIssueId(tx, issueId);
}

/** An edit's columns of the pull request; absent ones stay. */
export interface PullColumns {
  baseBranch?: string;
  status?: PullStatus;
  allowMaintainerEdit?: boolean;
}

export async function updatePullColumns(tx: DatabaseTransactionConnection, issueId: number, columns: PullColumns): Promise<PullRow> {
  const sets: FragmentSqlToken[] = [];
  if (columns.baseBranch !== undefined) sets.push(sql.fragment`base_branch = ${columns.baseBranch}`);
  if (columns.status !== undefined) sets.push(sql.fragment`status = ${columns.status}`);
  if (columns.allowMaintainerEdit !== undefined) sets.push(sql.fragment`allow_maintainer_edit = ${columns.allowMaintainerEdit}`);
  if (sets.length > 0) await tx.query(sql.unsafe`UPDATE pull_requests SET ${sql.join(sets, sql.fragment`, `)} WHERE issue_id = ${issueId}`);
  return requirePullByIssueId(tx, issueId);
}

/** Gitea's sorts of a pull-request list (models/issues/pull_list.go via applySorts); "" and unknown ones: newest. */
const SORTS: Readonly<Record<string, FragmentSqlToken>> = {
  oldest: sql.fragment`i.created ASC, i.id ASC`,
  recentupdate: sql.fragment`i.updated DESC, i.created DESC, i.id DESC`,
  leastupdate: sql.fragment`i.updated ASC, i.created ASC, i.id ASC`,
  mostcomment: sql.fragment`i.num_comments DESC, i.created DESC, i.id DESC`,
  leastcomment: sql.fragment`i.num_comments ASC, i.created DESC, i.id DESC`,
  // Gitea orders by issue.priority, which its API never sets: every pull request ties, newest first.
  priority: sql.fragment`i.created DESC, i.id DESC`,
};
const NEWEST = sql.fragment`i.created DESC, i.id DESC`;

export interface PullListQuery {
  repoId: number;
  /** is_closed values to keep. */
  states: readonly boolean[];
  sort: string;
  milestoneId: number;
  /** Pull requests carrying any of these labels (Gitea joins issue_label with IN). */
  labelIds: readonly number[];
  posterId: number;
  /** Only pull requests into this base branch; "" = any. */
  baseBranch: string;
  skip: number;
  limit: number;
}

export async function listPulls(db: CommonQueryMethods, query: PullListQuery): Promise<{ rows: PullRow[]; total: number }> {
  const conditions: FragmentSqlToken[] = [sql.fragment`i.repo_id = ${query.repoId}`, sql.fragment`i.is_pull`];
  if (query.states.length === 1) conditions.push(sql.fragment`i.is_closed = ${query.states[0]}`);
  if (query.milestoneId > 0) conditions.push(sql.fragment`i.milestone_id = ${query.milestoneId}`);
  if (query.posterId > 0) conditions.push(sql.fragment`i.poster_id = ${query.posterId}`);
  if (query.baseBranch !== '') conditions.push(sql.fragment`p.base_branch = ${query.baseBranch}`);
  const labelIds = query.labelIds.filter((id) => Number.isSafeInteger(id) && id > 0);
  if (labelIds.length > 0) {
    conditions.push(sql.fragment`EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id AND il.label_id = ANY(${sql.array(labelIds, 'int8')}))`);
  }
  const where = sql.join(conditions, sql.fragment` AND `);
  const order = Object.hasOwn(SORTS, query.sort) ? SORTS[query.sort] : NEWEST;
  const [rows, total] = await Promise.all([
    db.any(sql.type(pullRow)`
      SELECT ${PULL_COLUMNS} FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE ${where}
      ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.skip}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int8 AS count FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE ${where}`),
  ]);
  return { rows: [...rows], total };
}

/** The reviewers asked and not yet answered, per pull request (issue id), by reviewer id. */
export async function requestedReviewersOf(db: CommonQueryMethods, issueIds: readonly number[]): Promise<Map<number, number[]>> {
  const requested = new Map<number, number[]>();
  if (issueIds.length === 0) return requested;
  const rows = await db.any(sql.type(z.object({ issue_id: z.number(), reviewer_id: z.number() }))`
    SELECT issue_id, reviewer_id FROM review_requests WHERE issue_id = ANY(${sql.array([...issueIds], 'int8')}) ORDER BY reviewer_id`);
  for (const row of rows) requested.set(row.issue_id, [...(requested.get(row.issue_id) ?? []), row.reviewer_id]);
  return requested;
}

/** The teams asked to review and not yet answered (REQUEST_REVIEW reviews of a team), per pull request, by team id. */
export async function requestedTeamsOf(db: CommonQueryMethods, issueIds: readonly number[]): Promise<Map<number, number[]>> {
  const requested = new Map<number, number[]>();
  if (issueIds.length === 0) return requested;
  const rows = await db.any(sql.type(z.object({ issue_id: z.number(), reviewer_team_id: z.number() }))`
    SELECT DISTINCT issue_id, reviewer_team_id FROM reviews
    WHERE issue_id = ANY(${sql.array([...issueIds], 'int8')}) AND reviewer_team_id > 0 AND type = 4
    ORDER BY issue_id, reviewer_team_id`);
  for (const row of rows) requested.set(row.issue_id, [...(requested.get(row.issue_id) ?? []), row.reviewer_team_id]);
  return requested;
}

/** PullRequest messages for `rows`, in their order, each with its issue (toIssues) and requested reviewers. */
export async function toPullRequests(db: CommonQueryMethods, rows: readonly PullRow[]): Promise<PullRequest[]> {
  if (rows.length === 0) return [];
  const issueIds = rows.map((row) => row.issue_id);
  const [issueRows, requested, requestedTeams] = await Promise.all([
    findIssuesByIds(db, issueIds),
    requestedReviewersOf(db, issueIds),
    requestedTeamsOf(db, issueIds),
  ]);
  const issues = new Map((await toIssues(db, issueRows)).map((issue) => [issue.id, issue]));
  return rows.map((row) => ({
    issue: issues.get(row.issue_id),
    headRepoId: row.head_repo_id,
    headBranch: row.head_branch,
    baseBranch: row.base_branch,
    mergeBase: row.merge_base,
    headCommitId: row.head_commit_id,
    status: row.status,
    conflictedFiles: row.conflicted_files,
    hasMerged: row.has_merged,
    mergedCommitId: row.merged_commit_id,
    mergerId: row.merger_id,
    mergedAt: row.merged_at ?? undefined,
    allowMaintainerEdit: row.allow_maintainer_edit,
    requestedReviewerIds: requested.get(row.issue_id) ?? [],
    requestedReviewerTeamIds: requestedTeams.get(row.issue_id) ?? [],
  }));
}

export async function toPullRequest(db: CommonQueryMethods, row: PullRow): Promise<PullRequest> {
  const [pull] = await toPullRequests(db, [row]);
  return pull;
}
