/**
 * The `tracked_times` table. Deleting a time only marks it (`deleted`), as Gitea keeps deleted times and answers
 * "tracked time was already deleted"; lists never show marked times. Times are kept to the second (Gitea stores Unix
 * seconds), so `since`/`before` compare as Gitea's do. Lists are oldest first (created, then id).
 */
import { sql, z, type CommonQueryMethods, type SqlToken } from '@cairn/db';
import type { RepositoriesByKind, TrackedTime } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PageWindow } from '../domain/paging';
import { type IssueVisibility, repositoriesByKind, repositoryKindRow, visibleIssueCondition } from './readable-issues';

export const trackedTimeRow = z.object({
  id: z.number(),
  issue_id: z.number(),
  repo_id: z.number(),
  user_id: z.number(),
  time: z.number(),
  created: z.date(),
  deleted: z.boolean(),
});
export type TrackedTimeRow = z.infer<typeof trackedTimeRow>;

const COLUMNS = sql.fragment`t.id, t.issue_id, t.repo_id, t.user_id, t.time, t.created, t.deleted`;

export function toTrackedTime(row: TrackedTimeRow): TrackedTime {
  return { id: row.id, issueId: row.issue_id, userId: row.user_id, time: row.time, created: row.created, repoId: row.repo_id };
}

export interface NewTrackedTime {
  issueId: number;
  repoId: number;
  userId: number;
  /** Seconds, > 0. */
  time: number;
  /** Now when unset. */
  created?: Date;
}

export async function insertTrackedTime(db: CommonQueryMethods, time: NewTrackedTime): Promise<TrackedTimeRow> {
  const created = time.created === undefined ? sql.fragment`now()` : sql.timestamp(time.created);
  return db.one(sql.type(trackedTimeRow)`
    INSERT INTO tracked_times AS t (issue_id, repo_id, user_id, time, created)
    VALUES (${time.issueId}, ${time.repoId}, ${time.userId}, ${time.time}, date_trunc('second', ${created}))
    RETURNING ${COLUMNS}`);
}

/** What a list of times shows: one repository's (or one issue's) or one user's, within a creation window. */
export interface TimeFilter {
  repoId?: number;
  issueId?: number;
  userId?: number;
  /** Created at or after / at or before, to the second. */
  since?: Date;
  before?: Date;
  visibility: IssueVisibility;
}

function whereOf(filter: TimeFilter): SqlToken {
  const conditions = [sql.fragment`NOT t.deleted`, visibleIssueCondition(filter.visibility, sql.fragment`t.repo_id`)];
  if (filter.repoId !== undefined) conditions.push(sql.fragment`t.repo_id = ${filter.repoId}`);
  if (filter.issueId !== undefined) conditions.push(sql.fragment`t.issue_id = ${filter.issueId}`);
  if (filter.userId !== undefined) conditions.push(sql.fragment`t.user_id = ${filter.userId}`);
  if (filter.since !== undefined) conditions.push(sql.fragment`t.created >= date_trunc('second', ${sql.timestamp(filter.since)})`);
  if (filter.before !== undefined) conditions.push(sql.fragment`t.created <= date_trunc('second', ${sql.timestamp(filter.before)})`);
  return sql.join(conditions, sql.fragment` AND `);
}

/** One page of the times `filter` selects (all of them without a window). */
export async function listTrackedTimes(db: CommonQueryMethods, filter: TimeFilter, window: PageWindow | undefined): Promise<TrackedTimeRow[]> {
  const page = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const rows = await db.any(sql.type(trackedTimeRow)`
    SELECT ${COLUMNS} FROM tracked_times t JOIN issues i ON i.id = t.issue_id
    WHERE ${whereOf(filter)} ORDER BY t.created, t.id ${page}`);
  return [...rows];
}

export async function countTrackedTimes(db: CommonQueryMethods, filter: TimeFilter): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int8 AS n FROM tracked_times t JOIN issues i ON i.id = t.issue_id WHERE ${whereOf(filter)}`);
}

/** The repositories the times `filter` selects are in, for issues and for pull requests (before narrowing by visibility). */
export async function trackedTimeRepositories(db: CommonQueryMethods, filter: TimeFilter): Promise<RepositoriesByKind> {
  const rows = await db.any(sql.type(repositoryKindRow)`
    SELECT DISTINCT t.repo_id, i.is_pull FROM tracked_times t JOIN issues i ON i.id = t.issue_id
    WHERE ${whereOf({ ...filter, visibility: { kind: 'all' } })} ORDER BY t.repo_id`);
  return repositoriesByKind(rows);
}

/** One time by id, locked for the change that follows; deleted ones too. */
export async function findTrackedTimeForUpdate(db: CommonQueryMethods, id: number): Promise<TrackedTimeRow | undefined> {
  const row = await db.maybeOne(sql.type(trackedTimeRow)`SELECT ${COLUMNS} FROM tracked_times t WHERE t.id = ${id} FOR UPDATE`);
  return row ?? undefined;
}

export async function markTrackedTimeDeleted(db: CommonQueryMethods, id: number): Promise<TrackedTimeRow> {
  return db.one(sql.type(trackedTimeRow)`
    UPDATE tracked_times AS t SET deleted = true WHERE t.id = ${id} RETURNING ${COLUMNS}`);
}

/** Marks every time `userId` has on the issue as deleted; the times it marked. */
export async function markUserIssueTimesDeleted(db: CommonQueryMethods, issueId: number, userId: number): Promise<TrackedTimeRow[]> {
  const rows = await db.any(sql.type(trackedTimeRow)`
    UPDATE tracked_times AS t SET deleted = true
    WHERE t.issue_id = ${issueId} AND t.user_id = ${userId} AND NOT t.deleted
    RETURNING ${COLUMNS}`);
  return [...rows].sort((a, b) => a.id - b.id);
}

/** Times of issue `issueId` by id, deleted ones included (a timeline entry still shows what it added). */
export async function findIssueTrackedTimes(db: CommonQueryMethods, issueId: number, ids: readonly number[]): Promise<TrackedTimeRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(trackedTimeRow)`
    SELECT ${COLUMNS} FROM tracked_times t WHERE t.issue_id = ${issueId} AND t.id = ANY(${sql.array([...new Set(ids)], 'int8')})`);
  return [...rows];
}
