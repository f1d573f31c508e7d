/**
 * Notification threads as their owner reads and marks them (Gitea's models/activities/notification.go
 * FindNotificationOptions, SetNotificationStatus; routers/api/v1/notify). Every page is served from one of the
 * page indexes of migration 0004 and every unfiltered total from `notification_counts`, so a user with a million
 * threads costs what a user with ten does (no COUNT(*) over the whole list, no sort of it).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { ThreadStatus } from './threads';

const threadRow = z.object({
  id: z.number(),
  user_id: z.number(),
  repo_id: z.number(),
  subject_type: z.number(),
  issue_id: z.number(),
  issue_index: z.number(),
  commit_id: z.string(),
  comment_id: z.number(),
  status: z.number(),
  updated_by: z.number(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type ThreadRow = z.infer<typeof threadRow>;

const COLUMNS = sql.fragment`id, user_id, repo_id, subject_type, issue_id, issue_index, commit_id, comment_id, status, updated_by, created_at, updated_at`;

/** Every status: what `all` means, and the statuses a list may be merged from. */
export const ALL_STATUSES: readonly ThreadStatus[] = [ThreadStatus.unread, ThreadStatus.read, ThreadStatus.pinned];

/** What a list is narrowed to besides the owner and the statuses. */
export interface ThreadFilter {
  userId: number;
  /** Only these statuses; undefined is every status (`all`). Never empty: the caller resolves Gitea's defaults. */
  statuses?: readonly ThreadStatus[];
  /** Only these subject types; empty is all. */
  subjectTypes: readonly number[];
  /** Updated at or after (Gitea compares unix seconds: the caller passes whole seconds). */
  since?: Date;
  /** Updated before (exclusive; the caller passes Gitea's `before` + 1 s, as Gitea compares whole seconds). */
  beforeExclusive?: Date;
  repoId?: number;
}

/** Conditions besides user, repository and status: each a filter on the index range it is applied to. */
function extraConditions(filter: ThreadFilter) {
  const parts = [sql.fragment`TRUE`];
  if (filter.subjectTypes.length > 0) parts.push(sql.fragment`subject_type = ANY(${sql.array([...filter.subjectTypes], 'int2')})`);
  if (filter.since !== undefined) parts.push(sql.fragment`updated_at >= ${filter.since.toISOString()}::timestamptz`);
  if (filter.beforeExclusive !== undefined) parts.push(sql.fragment`updated_at < ${filter.beforeExclusive.toISOString()}::timestamptz`);
  if (filter.repoId !== undefined) parts.push(sql.fragment`repo_id = ${filter.repoId}`);
  return sql.join(parts, sql.fragment` AND `);
}

/** A list counts from the maintained counters only when nothing but statuses narrows it. */
function isUnfiltered(filter: ThreadFilter): boolean {
  return filter.subjectTypes.length === 0 && filter.since === undefined && filter.beforeExclusive === undefined && filter.repoId === undefined;
}

/**
 * One page, newest updated first (then id descending). `all` without a repository walks the user_page index; any
 * other list is the merge of one index range per status (user_status_page, or repo_page within a repository),
 * each cut at `offset + limit` rows, so the default list (unread and pinned) never sorts every unread thread.
 * Deep pages skip `offset` rows inside those ranges (OFFSET): page n reads n pages of index entries, never the
 * user's whole list.
 */
export function listThreads(db: CommonQueryMethods, filter: ThreadFilter, offset: number, limit: number): Promise<readonly ThreadRow[]> {
  const extra = extraConditions(filter);
  if (filter.statuses === undefined && filter.repoId === undefined) {
    return db.any(sql.type(threadRow)`
      SELECT ${COLUMNS} FROM notification_threads
      WHERE user_id = ${filter.userId} AND ${extra}
      ORDER BY updated_at DESC, id DESC
      LIMIT ${limit} OFFSET ${offset}`);
  }
  const statuses = filter.statuses ?? ALL_STATUSES;
  const ranges = statuses.map(
    (status) => sql.fragment`(
      SELECT ${COLUMNS} FROM notification_threads
      WHERE user_id = ${filter.userId} AND status = ${status} AND ${extra}
      ORDER BY updated_at DESC, id DESC
      LIMIT ${offset + limit})`,
  );
  return db.any(sql.type(threadRow)`
    SELECT * FROM (${sql.join(ranges, sql.fragment` UNION ALL `)}) AS merged
    ORDER BY updated_at DESC, id DESC
    LIMIT ${limit} OFFSET ${offset}`);
}

const totalRow = z.object({ total: z.number() });

/**
 * The list's total (X-Total-Count): the counters' rows for an unfiltered list; otherwise a count over the same index
 * ranges the page reads (a filtered list, narrower than the user's whole list).
 */
export async function countThreads(db: CommonQueryMethods, filter: ThreadFilter): Promise<number> {
  const statuses = filter.statuses ?? ALL_STATUSES;
  if (isUnfiltered(filter)) {
    const row = await db.one(sql.type(totalRow)`
      SELECT coalesce(sum(threads), 0)::int8 AS total FROM notification_counts
      WHERE user_id = ${filter.userId} AND status = ANY(${sql.array([...statuses], 'int2')})`);
    return row.total;
  }
  const row = await db.one(sql.type(totalRow)`
    SELECT count(*)::int8 AS total FROM notification_threads
    WHERE user_id = ${filter.userId} AND status = ANY(${sql.array([...statuses], 'int2')}) AND ${extraConditions(filter)}`);
  return row.total;
}

/** The user's unread threads, from the maintained counter (`GET /notifications/new`). */
export async function countUnread(db: CommonQueryMethods, userId: number): Promise<number> {
  const row = await db.maybeOne(sql.type(z.object({ threads: z.number() }))`
    SELECT threads FROM notification_counts WHERE user_id = ${userId} AND status = ${ThreadStatus.unread}`);
  return row?.threads ?? 0;
}

export function getThread(db: CommonQueryMethods, id: number): Promise<ThreadRow | null> {
  return db.maybeOne(sql.type(threadRow)`SELECT ${COLUMNS} FROM notification_threads WHERE id = ${id}`);
}

/**
 * Sets one thread's status. Gitea's SetNotificationStatus updates the row through xorm, whose `updated` column
 * moves to now on every update: so does updated_at here.
 */
export function setThreadStatus(tx: DatabaseTransactionConnection, id: number, status: ThreadStatus): Promise<ThreadRow> {
  return tx.one(sql.type(threadRow)`
    UPDATE notification_threads SET status = ${status}, updated_at = now() WHERE id = ${id}
    RETURNING ${COLUMNS}`);
}

export interface MarkFilter {
  userId: number;
  /** Threads with one of these statuses; undefined: any status (`all`). */
  statuses?: readonly ThreadStatus[];
  /** Updated before (exclusive; Gitea's `last_read_at` + 1 s, as Gitea compares whole seconds). */
  beforeExclusive?: Date;
  repoId?: number;
}

/**
 * How many of the changed threads a marking answers: Gitea answers every one, which for a user with a million unread
 * threads is a body no client wants, more than one gRPC message holds, and more issues than one BatchGetIssues takes.
 */
export const MARK_ANSWER_LIMIT = 1000;

/**
 * Sets the status of every matching thread (Gitea's ReadNotifications / ReadRepoNotifications: each found thread
 * through SetNotificationStatus, so each one's updated_at moves to now). Answers the first MARK_ANSWER_LIMIT of them
 * in the order Gitea found them (newest updated first, as they were before the change); the UPDATE in the WITH
 * clause runs to completion whatever the outer LIMIT.
 */
export function setThreadsStatus(tx: DatabaseTransactionConnection, filter: MarkFilter, status: ThreadStatus): Promise<readonly ThreadRow[]> {
  const parts = [sql.fragment`user_id = ${filter.userId}`];
  if (filter.statuses !== undefined) parts.push(sql.fragment`status = ANY(${sql.array([...filter.statuses], 'int2')})`);
  if (filter.beforeExclusive !== undefined) parts.push(sql.fragment`updated_at < ${filter.beforeExclusive.toISOString()}::timestamptz`);
  if (filter.repoId !== undefined) parts.push(sql.fragment`repo_id = ${filter.repoId}`);
  // Rows locked in the order touchThreads locks a user's rows (repository, issue, commit), so the two do not deadlock.
  return tx.any(sql.type(threadRow.extend({ previous_updated_at: z.date() }))`
    WITH target AS (
      SELECT id, updated_at AS previous_updated_at FROM notification_threads
      WHERE ${sql.join(parts, sql.fragment` AND `)}
      ORDER BY repo_id, issue_id, commit_id FOR UPDATE
    ), changed AS (
      UPDATE notification_threads AS t SET status = ${status}, updated_at = now()
      FROM target WHERE t.id = target.id
      RETURNING t.id, t.user_id, t.repo_id, t.subject_type, t.issue_id, t.issue_index, t.commit_id, t.comment_id, t.status,
        t.updated_by, t.created_at, t.updated_at, target.previous_updated_at
    )
    SELECT * FROM changed ORDER BY previous_updated_at DESC, id DESC LIMIT ${MARK_ANSWER_LIMIT}`);
}
