/**
 * The `comments` table: reading comments with the number and kind of their issue, writing plain comments, and the
 * `updated` window Gitea's `since`/`before` filters apply (whole seconds, as its `updated_unix`).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import type { Comment, IssueSubject } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PageWindow } from '../domain/paging';
import { ISSUE_COLUMNS, issueRow, type IssueRow } from './issues';

/** Gitea's CommentTypeComment: the only kind the comment API lists, counts, edits and deletes. */
export const PLAIN_COMMENT = 0;
/** Gitea's CommentTypeCode and CommentTypeReview: with plain comments, what makes a user a participant. */
export const CODE_COMMENT = 21;
export const REVIEW_COMMENT = 22;

export const commentRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  issue_id: z.number(),
  type: z.number(),
  poster_id: z.number(),
  original_author: z.string(),
  original_author_id: z.number(),
  body: z.string(),
  content_version: z.number(),
  created: z.date(),
  updated: z.date(),
  issue_index: z.number(),
  issue_is_pull: z.boolean(),
});
export type CommentRow = z.infer<typeof commentRow>;

/** The columns of `commentRow`, for SELECTs over `comments c JOIN issues i`. */
const COMMENT_COLUMNS = sql.fragment`c.id, c.repo_id, c.issue_id, c.type, c.poster_id, c.original_author, c.original_author_id, c.body,
  c.content_version, c.created, c.updated, i.index AS issue_index, i.is_pull AS issue_is_pull`;

export function toComment(row: CommentRow): Comment {
  return {
    id: row.id,
    repoId: row.repo_id,
    issueId: row.issue_id,
    issueIndex: row.issue_index,
    issueIsPull: row.issue_is_pull,
    posterId: row.poster_id,
    body: row.body,
    created: row.created,
    updated: row.updated,
    originalAuthor: row.original_author,
    originalAuthorId: row.original_author_id,
  };
}

/**
 * Gitea's `since`/`before` on comments: `updated_unix >= since` and `updated_unix <= before` in whole seconds, each
 * only when positive (a time before 1970 filters nothing, as Gitea's `> 0` checks).
 */
export interface UpdatedWindow {
  since?: Date;
  before?: Date;
}

function unixSeconds(date: Date | undefined): number {
  return date === undefined ? 0 : Math.floor(date.getTime() / 1000);
}

export function updatedConditions(window: UpdatedWindow): FragmentSqlToken[] {
  const conditions: FragmentSqlToken[] = [];
  const since = unixSeconds(window.since);
  const before = unixSeconds(window.before);
  if (since > 0) conditions.push(sql.fragment`c.updated >= to_timestamp(${since})`);
  // Rows are kept to the microsecond: "at most `before`'s second" is "before the next second".
  if (before > 0) conditions.push(sql.fragment`c.updated < to_timestamp(${before + 1})`);
  return conditions;
}

function whereAll(conditions: readonly FragmentSqlToken[]): FragmentSqlToken {
  return sql.fragment`${sql.join(conditions, sql.fragment` AND `)}`;
}

/** One issue's plain comments, oldest first (Gitea's FindComments order: created, then id). */
export async function listIssueComments(db: CommonQueryMethods, issueId: number, window: UpdatedWindow): Promise<CommentRow[]> {
  const conditions = [sql.fragment`c.issue_id = ${issueId}`, sql.fragment`c.type = ${PLAIN_COMMENT}`, ...updatedConditions(window)];
  const rows = await db.any(sql.type(commentRow)`
    SELECT ${COMMENT_COLUMNS} FROM comments c JOIN issues i ON i.id = c.issue_id
    WHERE ${whereAll(conditions)} ORDER BY c.created, c.id`);
  return [...rows];
}

export interface RepoCommentsFilter extends UpdatedWindow {
  repoId: number;
  /** Only comments of pull requests (true) or of issues (false); both when unset. */
  isPull?: boolean;
}

/** A page of a repository's plain comments, oldest first, and how many there are in all. */
export async function listRepoComments(
  db: CommonQueryMethods,
  filter: RepoCommentsFilter,
  window: PageWindow | undefined,
): Promise<{ rows: CommentRow[]; total: number }> {
  const conditions = [sql.fragment`c.repo_id = ${filter.repoId}`, sql.fragment`c.type = ${PLAIN_COMMENT}`, ...updatedConditions(filter)];
  if (filter.isPull !== undefined) conditions.push(sql.fragment`i.is_pull = ${filter.isPull}`);
  const where = whereAll(conditions);
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(commentRow)`
      SELECT ${COMMENT_COLUMNS} FROM comments c JOIN issues i ON i.id = c.issue_id
      WHERE ${where} ORDER BY c.created, c.id ${paging}`),
    db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int8 AS n FROM comments c JOIN issues i ON i.id = c.issue_id WHERE ${where}`),
  ]);
  return { rows: [...rows], total };
}

/** A comment (of any kind) of repository `repoId`; undefined when it has none by that id. `lock` takes a row lock. */
export async function findRepoComment(db: CommonQueryMethods, repoId: number, id: number, lock = false): Promise<CommentRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const row = await db.maybeOne(sql.type(commentRow)`
    SELECT ${COMMENT_COLUMNS} FROM comments c JOIN issues i ON i.id = c.issue_id
    WHERE c.id = ${id} AND c.repo_id = ${repoId} ${lock ? sql.fragment`FOR UPDATE OF c` : sql.fragment``}`);
  return row ?? undefined;
}

/** Plain comments by id, in any repository, in id order; unknown ids are left out. */
export async function findCommentsByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<CommentRow[]> {
  const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (wanted.length === 0) return [];
  const rows = await db.any(sql.type(commentRow)`
    SELECT ${COMMENT_COLUMNS} FROM comments c JOIN issues i ON i.id = c.issue_id
    WHERE c.id = ANY(${sql.array(wanted, 'int8')}) AND c.type = ${PLAIN_COMMENT} ORDER BY c.id`);
  return [...rows];
}

const issueSubjectRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  index: z.number(),
  title: z.string(),
  is_pull: z.boolean(),
  is_closed: z.boolean(),
  merged: z.boolean(),
  last_comment_id: z.number().nullable(),
});

/**
 * What notification threads show of their issues, in one statement: title, number, state and the newest plain comment
 * (Gitea's Issue.GetLastComment: type comment, latest created; one backward step of comments_by_issue per issue).
 */
export async function findIssueSubjects(db: CommonQueryMethods, ids: readonly number[]): Promise<IssueSubject[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(issueSubjectRow)`
    SELECT i.id, i.repo_id, i.index, i.title, i.is_pull, i.is_closed,
      i.is_pull AND EXISTS (SELECT FROM pull_requests p WHERE p.issue_id = i.id AND p.has_merged) AS merged,
      (SELECT c.id FROM comments c WHERE c.issue_id = i.id AND c.type = ${PLAIN_COMMENT} ORDER BY c.created DESC, c.id DESC LIMIT 1) AS last_comment_id
    FROM issues i WHERE i.id = ANY(${sql.array(ids, 'int8')})`);
  return rows.map((row) => ({
    id: row.id,
    repoId: row.repo_id,
    index: row.index,
    title: row.title,
    isPull: row.is_pull,
    isClosed: row.is_closed,
    merged: row.merged,
    lastCommentId: row.last_comment_id ?? 0,
  }));
}

export interface NewComment {
  repoId: number;
  issueId: number;
  posterId: number;
  body: string;
}

/** Inserts a plain comment (the trigger counts it on its issue). */
export async function insertComment(tx: DatabaseTransactionConnection, comment: NewComment): Promise<CommentRow> {
  return tx.one(sql.type(commentRow)`
    WITH c AS (
      INSERT INTO comments (repo_id, issue_id, type, poster_id, body)
      VALUES (${comment.repoId}, ${comment.issueId}, ${PLAIN_COMMENT}, ${comment.posterId}, ${comment.body})
      RETURNING *
    )
    SELECT ${COMMENT_COLUMNS} FROM c JOIN issues i ON i.id = c.issue_id`);
}

/** A new body: one more content version, updated now. */
export async function updateCommentBody(tx: DatabaseTransactionConnection, id: number, body: string): Promise<CommentRow> {
  return tx.one(sql.type(commentRow)`
    WITH c AS (
      UPDATE comments SET body = ${body}, content_version = content_version + 1, updated = now() WHERE id = ${id} RETURNING *
    )
    SELECT ${COMMENT_COLUMNS} FROM c JOIN issues i ON i.id = c.issue_id`);
}

export async function deleteCommentRow(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM comments WHERE id = ${id}`);
}

/**
 * Up to `limit` plain comments of `posterId`, locked and deleted, oldest first (a deleted user's comments go in
 * batches of this size, as Gitea's deleteUser does).
 */
export async function deletePosterComments(tx: DatabaseTransactionConnection, posterId: number, limit: number): Promise<CommentRow[]> {
  const rows = await tx.any(sql.type(commentRow)`
    WITH c AS (
      DELETE FROM comments WHERE id IN (
        SELECT id FROM comments WHERE poster_id = ${posterId} AND type = ${PLAIN_COMMENT} ORDER BY created, id LIMIT ${limit} FOR UPDATE
      )
      RETURNING *
    )
    SELECT ${COMMENT_COLUMNS} FROM c JOIN issues i ON i.id = c.issue_id ORDER BY c.created, c.id`);
  return [...rows];
}

/** The user wrote a plain, code or review comment on the issue (Gitea's GetParticipantIDsByIssue). */
export async function hasCommented(db: CommonQueryMethods, issueId: number, userId: number): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM comments
    WHERE issue_id = ${issueId} AND poster_id = ${userId} AND type IN (${PLAIN_COMMENT}, ${CODE_COMMENT}, ${REVIEW_COMMENT})`);
}

/**
 * Commenting (and deleting a comment) is a change of the issue: its `updated` moves to now, as Gitea's
 * updateCommentInfos and DeleteComment do. Answers the issues as they are now (with their comment counts).
 */
export async function touchIssues(tx: DatabaseTransactionConnection, issueIds: readonly number[]): Promise<IssueRow[]> {
  if (issueIds.length === 0) return [];
  const rows = await tx.any(sql.type(issueRow)`
    UPDATE issues AS i SET updated = now() WHERE i.id = ANY(${sql.array([...new Set(issueIds)], 'int8')}) RETURNING ${ISSUE_COLUMNS}`);
  return [...rows];
}

export async function touchIssue(tx: DatabaseTransactionConnection, issueId: number): Promise<IssueRow> {
  const [row] = await touchIssues(tx, [issueId]);
  if (row === undefined) throw new Error(`issue ${issueId} vanished inside its own transaction`);
  return row;
}
