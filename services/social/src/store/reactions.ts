/**
 * The `reactions` table: one user's reaction of one kind (`content`) on an issue (comment_id 0) or a comment;
 * adding one unless it exists, removing, listing a target's oldest first, and forgetting those of a deleted
 * repository, issue, comment or user.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { PageWindow } from '../domain/paging';

/** What a reaction is on: an issue (commentId 0) or one of its comments, in a repository. */
export interface Target {
  repoId: number;
  issueId: number;
  commentId: number;
}

const reactionRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  issue_id: z.number(),
  comment_id: z.number(),
  user_id: z.number(),
  user_name: z.string(),
  content: z.string(),
  created: z.date(),
  original_author: z.string(),
  original_service: z.string(),
});
export type ReactionRow = z.infer<typeof reactionRow>;

const COLUMNS = sql.fragment`id, repo_id, issue_id, comment_id, user_id, user_name, content, created, original_author, original_service`;

export interface NewReaction {
  target: Target;
  userId: number;
  userName: string;
  content: string;
}

/** Adds the reaction; null when the user already reacted so (a concurrent twin waits for the first, then adds nothing). */
export async function insertReaction(tx: DatabaseTransactionConnection, reaction: NewReaction): Promise<ReactionRow | null> {
  const { target, userId, userName, content } = reaction;
  return tx.maybeOne(sql.type(reactionRow)`
    INSERT INTO reactions (repo_id, issue_id, comment_id, user_id, user_name, content)
    VALUES (${target.repoId}, ${target.issueId}, ${target.commentId}, ${userId}, ${userName}, ${content})
    ON CONFLICT ON CONSTRAINT reactions_once DO NOTHING
    RETURNING ${COLUMNS}`);
}

/** The user's reaction of this kind on the target, or null. */
export function findReaction(db: CommonQueryMethods, target: Target, userId: number, content: string): Promise<ReactionRow | null> {
  return db.maybeOne(sql.type(reactionRow)`
    SELECT ${COLUMNS} FROM reactions
    WHERE issue_id = ${target.issueId} AND comment_id = ${target.commentId} AND user_id = ${userId} AND content = ${content}
      AND original_author_id = 0`);
}

/** Removes the user's reaction of this kind on the target; the removed row, or null when there was none. */
export function deleteReaction(tx: DatabaseTransactionConnection, target: Target, userId: number, content: string): Promise<ReactionRow | null> {
  return tx.maybeOne(sql.type(reactionRow)`
    DELETE FROM reactions
    WHERE issue_id = ${target.issueId} AND comment_id = ${target.commentId} AND user_id = ${userId} AND content = ${content}
      AND original_author_id = 0
    RETURNING ${COLUMNS}`);
}

/** Only the kinds in `contents` count (Gitea lists reactions of the configured kinds only). */
function targetWhere(target: Target, contents: readonly string[]) {
  return sql.fragment`issue_id = ${target.issueId} AND comment_id = ${target.commentId} AND content = ANY(${sql.array([...contents], 'text')})`;
}

/** The target's reactions of the kinds in `contents`, oldest first; `window` undefined lists them all. */
export function listReactions(
  db: CommonQueryMethods,
  target: Target,
  contents: readonly string[],
  window: PageWindow | undefined,
): Promise<readonly ReactionRow[]> {
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  return db.any(sql.type(reactionRow)`
    SELECT ${COLUMNS} FROM reactions WHERE ${targetWhere(target, contents)} ORDER BY created, id ${paging}`);
}

const countRow = z.object({ count: z.number() });

/** How many reactions of the kinds in `contents` the target has (one target holds few: counted on its index). */
export async function countReactions(db: CommonQueryMethods, target: Target, contents: readonly string[]): Promise<number> {
  const row = await db.one(sql.type(countRow)`SELECT count(*)::int AS count FROM reactions WHERE ${targetWhere(target, contents)}`);
  return row.count;
}

/*
 * Forgetting reactions whose target or user is gone. No event is published for them: the deletion event that
 * caused the removal stands for them.
 */

export async function deleteRepoReactions(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM reactions WHERE repo_id = ${repoId}`);
}

/** The issue's reactions and those of its comments. */
export async function deleteIssueReactions(tx: DatabaseTransactionConnection, issueId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM reactions WHERE issue_id = ${issueId}`);
}

export async function deleteCommentReactions(tx: DatabaseTransactionConnection, issueId: number, commentId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM reactions WHERE issue_id = ${issueId} AND comment_id = ${commentId}`);
}

export async function deleteUserReactions(tx: DatabaseTransactionConnection, userId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM reactions WHERE user_id = ${userId}`);
}

/** A renamed user's reactions carry their new name. */
export async function renameReactionUser(tx: DatabaseTransactionConnection, userId: number, userName: string): Promise<void> {
  await tx.query(sql.unsafe`UPDATE reactions SET user_name = ${userName} WHERE user_id = ${userId} AND user_name <> ${userName}`);
}

export interface ImportReaction {
  target: Target;
  userId: number;
  userName: string;
  content: string;
  originalAuthor: string;
  originalAuthorId: number;
  originalService: string;
}

/** Adds a migrated repository's reactions; those already there (same target, user or original author, kind) stay. */
export async function insertImportedReactions(tx: DatabaseTransactionConnection, reactions: readonly ImportReaction[]): Promise<number> {
  if (reactions.length === 0) return 0;
  const rows = reactions.map((r) => ({
    repo_id: r.target.repoId,
    issue_id: r.target.issueId,
    comment_id: r.target.commentId,
    user_id: r.userId,
    user_name: r.userName,
    content: r.content,
    original_author: r.originalAuthor,
    original_author_id: r.originalAuthorId,
    original_service: r.originalService,
  }));
  const result = await tx.query(sql.unsafe`
    INSERT INTO reactions (repo_id, issue_id, comment_id, user_id, user_name, content, original_author, original_author_id, original_service)
    SELECT r.repo_id, r.issue_id, r.comment_id, r.user_id, r.user_name, r.content, r.original_author, r.original_author_id, r.original_service
    FROM jsonb_to_recordset(${sql.jsonb(rows)}) AS r (repo_id bigint, issue_id bigint, comment_id bigint, user_id bigint, user_name text,
      content text, original_author text, original_author_id bigint, original_service text)
    ON CONFLICT ON CONSTRAINT reactions_once DO NOTHING`);
  return result.rowCount;
}
