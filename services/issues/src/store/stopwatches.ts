/**
 * The `stopwatches` table: at most one per (user, issue); starting one stops the user's others (Gitea keeps one
 * running per user). Rows are read with their issue's index and title, which GET /user/stopwatches shows.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { RepositoriesByKind, Stopwatch } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PageWindow } from '../domain/paging';
import { type IssueVisibility, repositoriesByKind, repositoryKindRow, visibleIssueCondition } from './readable-issues';

export const stopwatchRow = z.object({
  user_id: z.number(),
  issue_id: z.number(),
  repo_id: z.number(),
  created: z.date(),
});
export type StopwatchRow = z.infer<typeof stopwatchRow>;

/** A removed stopwatch with the whole seconds it ran (at least 1: a tracked time is never 0). */
const deletedStopwatchRow = stopwatchRow.extend({ elapsed: z.number() });
export type DeletedStopwatchRow = z.infer<typeof deletedStopwatchRow>;

const DELETED_COLUMNS = sql.fragment`user_id, issue_id, repo_id, created,
  GREATEST(1, floor(extract(epoch FROM date_trunc('second', now()) - created)))::int8 AS elapsed`;

const listedStopwatchRow = stopwatchRow.extend({ issue_index: z.number(), issue_title: z.string() });
type ListedStopwatchRow = z.infer<typeof listedStopwatchRow>;

export function toStopwatch(row: ListedStopwatchRow): Stopwatch {
  return { issueId: row.issue_id, repoId: row.repo_id, issueIndex: row.issue_index, issueTitle: row.issue_title, created: row.created };
}

/** Starts the user's stopwatch on the issue (to the second, as Gitea's Unix seconds); undefined when one runs already. */
export async function insertStopwatch(db: CommonQueryMethods, userId: number, issue: { id: number; repoId: number }): Promise<StopwatchRow | undefined> {
  const row = await db.maybeOne(sql.type(stopwatchRow)`
    INSERT INTO stopwatches (user_id, issue_id, repo_id, created) VALUES (${userId}, ${issue.id}, ${issue.repoId}, date_trunc('second', now()))
    ON CONFLICT (user_id, issue_id) DO NOTHING
    RETURNING user_id, issue_id, repo_id, created`);
  return row ?? undefined;
}

/** Removes the user's stopwatch on the issue; what it removed. */
export async function deleteStopwatch(db: CommonQueryMethods, userId: number, issueId: number): Promise<DeletedStopwatchRow | undefined> {
  const row = await db.maybeOne(sql.type(deletedStopwatchRow)`
    DELETE FROM stopwatches WHERE user_id = ${userId} AND issue_id = ${issueId} RETURNING ${DELETED_COLUMNS}`);
  return row ?? undefined;
}

/** Removes the user's stopwatches on every issue but `issueId`; what it removed. */
export async function deleteOtherStopwatches(db: CommonQueryMethods, userId: number, issueId: number): Promise<DeletedStopwatchRow[]> {
  const rows = await db.any(sql.type(deletedStopwatchRow)`
    DELETE FROM stopwatches WHERE user_id = ${userId} AND issue_id <> ${issueId} RETURNING ${DELETED_COLUMNS}`);
  return [...rows];
}

/** One page of the user's stopwatches `visibility` lets through, oldest first. */
export async function listUserStopwatches(
  db: CommonQueryMethods,
  userId: number,
  visibility: IssueVisibility,
  window: PageWindow | undefined,
): Promise<ListedStopwatchRow[]> {
  const page = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const rows = await db.any(sql.type(listedStopwatchRow)`
    SELECT s.user_id, s.issue_id, s.repo_id, s.created, i.index AS issue_index, i.title AS issue_title
    FROM stopwatches s JOIN issues i ON i.id = s.issue_id
    WHERE s.user_id = ${userId} AND ${visibleIssueCondition(visibility, sql.fragment`s.repo_id`)}
    ORDER BY s.created, s.issue_id ${page}`);
  return [...rows];
}

export async function countUserStopwatches(db: CommonQueryMethods, userId: number, visibility: IssueVisibility): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int8 AS n FROM stopwatches s JOIN issues i ON i.id = s.issue_id
    WHERE s.user_id = ${userId} AND ${visibleIssueCondition(visibility, sql.fragment`s.repo_id`)}`);
}

/** The repositories the user has stopwatches in, for issues and for pull requests. */
export async function stopwatchRepositories(db: CommonQueryMethods, userId: number): Promise<RepositoriesByKind> {
  const rows = await db.any(sql.type(repositoryKindRow)`
    SELECT DISTINCT s.repo_id, i.is_pull FROM stopwatches s JOIN issues i ON i.id = s.issue_id
    WHERE s.user_id = ${userId} ORDER BY s.repo_id`);
  return repositoriesByKind(rows);
}
