/**
 * Writing issues: the next per-repository number (shared with pull requests), the issue row, its assignees, column
 * changes, locking and deletion (labels: store/issue-labels.ts). Counters (issue_counts, issue_blocks, milestone
 * counts) follow by trigger in the same transaction.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import { ISSUE_COLUMNS, issueRow, type IssueRow } from './issues';
import { insertTimelineEntries } from './timeline';

/**
 * The repository's next issue number. The upsert takes the repository's row lock until the transaction ends, so
 * concurrent creations (issues and pull requests alike) are numbered one after the other without gaps or clashes.
 */
export async function allocateIssueIndex(tx: DatabaseTransactionConnection, repoId: number): Promise<number> {
  return tx.oneFirst(sql.type(z.object({ max_index: z.number() }))`
    INSERT INTO repo_issue_index AS r (repo_id, max_index) VALUES (${repoId}, 1)
    ON CONFLICT (repo_id) DO UPDATE SET max_index = r.max_index + 1
    RETURNING max_index`);
}

export interface NewIssue {
  repoId: number;
  index: number;
  posterId: number;
  title: string;
  body: string;
  ref: string;
  isPull: boolean;
  isClosed: boolean;
  milestoneId: number | null;
  deadline: Date | null;
}

export async function insertIssue(tx: DatabaseTransactionConnection, issue: NewIssue): Promise<IssueRow> {
  return tx.one(sql.type(issueRow)`
    INSERT INTO issues AS i (repo_id, index, poster_id, title, body, ref, is_pull, is_closed, closed_at, milestone_id, deadline)
    VALUES (${issue.repoId}, ${issue.index}, ${issue.posterId}, ${issue.title}, ${issue.body}, ${issue.ref}, ${issue.isPull},
            ${issue.isClosed}, ${issue.isClosed ? sql.fragment`now()` : null}, ${issue.milestoneId},
            ${issue.deadline === null ? null : sql.timestamp(issue.deadline)})
    RETURNING ${ISSUE_COLUMNS}`);
}

/** Columns an edit may change; absent ones stay. */
export interface IssueColumns {
  title?: string;
  body?: string;
  ref?: string;
  isClosed?: boolean;
  milestoneId?: number | null;
  deadline?: Date | null;
  isLocked?: boolean;
}

/**
 * Stores the given columns and touches `updated`. A new body bumps `content_version`; closing sets `closed_at`,
 * reopening clears it (Gitea's ClosedUnix).
 */
export async function updateIssueColumns(tx: DatabaseTransactionConnection, id: number, columns: IssueColumns): Promise<IssueRow> {
  const sets: FragmentSqlToken[] = [sql.fragment`updated = now()`];
  if (columns.title !== undefined) sets.push(sql.fragment`title = ${columns.title}`);
  if (columns.body !== undefined) sets.push(sql.fragment`body = ${columns.body}`, sql.fragment`content_version = i.content_version + 1`);
  if (columns.ref !== undefined) sets.push(sql.fragment`ref = ${columns.ref}`);
  if (columns.isClosed !== undefined) {
    sets.push(sql.fragment`is_closed = ${columns.isClosed}`, sql.fragment`closed_at = ${columns.isClosed ? sql.fragment`now()` : null}`);
  }
  if (columns.milestoneId !== undefined) sets.push(sql.fragment`milestone_id = ${columns.milestoneId}`);
  if (columns.deadline !== undefined) sets.push(sql.fragment`deadline = ${columns.deadline === null ? null : sql.timestamp(columns.deadline)}`);
  if (columns.isLocked !== undefined) sets.push(sql.fragment`is_locked = ${columns.isLocked}`);
  return tx.one(sql.type(issueRow)`
    UPDATE issues AS i SET ${sql.join(sets, sql.fragment`, `)} WHERE i.id = ${id} RETURNING ${ISSUE_COLUMNS}`);
}

/** The issue's row, locked for the rest of the transaction (an edit reads what it changes under the lock). */
export async function lockIssueRow(tx: DatabaseTransactionConnection, id: number): Promise<IssueRow | null> {
  return tx.maybeOne(sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE i.id = ${id} FOR UPDATE`);
}

export interface AssigneeChange {
  added: number[];
  removed: number[];
}

/** The issue's assignees now. */
export async function findAssigneeIds(db: CommonQueryMethods, issueId: number): Promise<number[]> {
  return [...(await db.anyFirst(sql.type(z.object({ assignee_id: z.number() }))`SELECT assignee_id FROM issue_assignees WHERE issue_id = ${issueId}`))];
}

/** Makes `assigneeIds` the issue's assignees; answers who was added and who removed. */
export async function replaceAssignees(tx: DatabaseTransactionConnection, issueId: number, assigneeIds: readonly number[]): Promise<AssigneeChange> {
  const wanted = sql.array([...new Set(assigneeIds)], 'int8');
  const removed = await tx.anyFirst(sql.type(z.object({ assignee_id: z.number() }))`
    DELETE FROM issue_assignees WHERE issue_id = ${issueId} AND NOT (assignee_id = ANY(${wanted})) RETURNING assignee_id`);
  const added = await tx.anyFirst(sql.type(z.object({ assignee_id: z.number() }))`
    INSERT INTO issue_assignees (issue_id, assignee_id) SELECT ${issueId}, unnest(${wanted})
    ON CONFLICT DO NOTHING RETURNING assignee_id`);
  return { added: [...added].sort((a, b) => a - b), removed: [...removed].sort((a, b) => a - b) };
}

/** Gitea's CommentTypeLock / CommentTypeUnlock: the timeline entries that keep a lock's reason. */
export const COMMENT_TYPE_LOCK = 23;
export const COMMENT_TYPE_UNLOCK = 24;

/** A timeline entry (not a plain comment: comment lists and counts leave it out); store/timeline.ts writes it. */
export async function insertTimelineComment(
  tx: DatabaseTransactionConnection,
  entry: { repoId: number; issueId: number; type: number; posterId: number; body: string },
): Promise<void> {
  await insertTimelineEntries(tx, [entry]);
}

/** Deletes the issue; its comments, labels, assignees, mentions, times, stopwatches and subscriptions cascade. */
export async function deleteIssueRow(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM issues WHERE id = ${id}`);
}

/** The issues (not pull requests) of a repository with these numbers, locked for the rest of the transaction. */
export async function lockIssuesByIndex(tx: DatabaseTransactionConnection, repoId: number, indexes: readonly number[]): Promise<IssueRow[]> {
  if (indexes.length === 0) return [];
  const rows = await tx.any(sql.type(issueRow)`
    SELECT ${ISSUE_COLUMNS} FROM issues i
    WHERE i.repo_id = ${repoId} AND i.index = ANY(${sql.array(indexes, 'int8')}) AND NOT i.is_pull
    ORDER BY i.index FOR UPDATE`);
  return [...rows];
}

/** The issue or pull request of a repository with this number, locked for the rest of the transaction. */
export async function lockIssueByIndex(tx: DatabaseTransactionConnection, repoId: number, index: number): Promise<IssueRow | null> {
  return tx.maybeOne(sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE i.repo_id = ${repoId} AND i.index = ${index} FOR UPDATE`);
}
