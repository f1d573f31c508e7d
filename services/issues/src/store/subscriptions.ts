/**
 * The `issue_watches` table (Gitea's issue_watch): explicit subscriptions (is_watching) and unsubscriptions
 * (not is_watching) of users to issues.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { PageWindow } from '../domain/paging';

/** The user's explicit choice on the issue: true (subscribed), false (unsubscribed) or undefined (none). */
export async function findWatch(db: CommonQueryMethods, issueId: number, userId: number): Promise<boolean | undefined> {
  const row = await db.maybeOneFirst(sql.type(z.object({ is_watching: z.boolean() }))`
    SELECT is_watching FROM issue_watches WHERE issue_id = ${issueId} AND user_id = ${userId}`);
  return row ?? undefined;
}

/**
 * Records the user's choice (Gitea's CreateOrUpdateIssueWatch); false when the row already held it (a concurrent
 * call made the same change first).
 */
export async function saveWatch(tx: DatabaseTransactionConnection, issueId: number, userId: number, watching: boolean): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO issue_watches AS w (issue_id, user_id, is_watching) VALUES (${issueId}, ${userId}, ${watching})
    ON CONFLICT (issue_id, user_id) DO UPDATE SET is_watching = EXCLUDED.is_watching, updated = now()
      WHERE w.is_watching IS DISTINCT FROM EXCLUDED.is_watching`);
  return result.rowCount > 0;
}

/** A page of the users explicitly subscribed to the issue (earliest first) and how many there are. */
export async function listWatchers(
  db: CommonQueryMethods,
  issueId: number,
  window: PageWindow | undefined,
): Promise<{ userIds: number[]; total: number }> {
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const [userIds, total] = await Promise.all([
    db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
      SELECT user_id FROM issue_watches WHERE issue_id = ${issueId} AND is_watching ORDER BY created, user_id ${paging}`),
    db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int8 AS n FROM issue_watches WHERE issue_id = ${issueId} AND is_watching`),
  ]);
  return { userIds: [...userIds], total };
}

/**
 * Who an issue's notifications consider besides repository watchers (Gitea's models/activities/notification_list.go
 * createOrUpdateIssueNotifications): explicit subscribers, explicit unsubscribers, and participants — the poster and
 * the writers of plain, code or review comments (models/issues/issue.go GetParticipantIDsByIssue). One query.
 */
export async function issueAudience(
  db: CommonQueryMethods,
  issueId: number,
  participantCommentTypes: readonly number[],
): Promise<{ watcherIds: number[]; unwatcherIds: number[]; participantIds: number[] }> {
  const rows = await db.any(sql.type(z.object({ user_id: z.number(), kind: z.enum(['watch', 'unwatch', 'participant']) }))`
    SELECT user_id, CASE WHEN is_watching THEN 'watch' ELSE 'unwatch' END AS kind FROM issue_watches WHERE issue_id = ${issueId}
    UNION
    SELECT poster_id AS user_id, 'participant' AS kind FROM issues WHERE id = ${issueId} AND poster_id > 0
    UNION
    SELECT DISTINCT poster_id AS user_id, 'participant' AS kind FROM comments
    WHERE issue_id = ${issueId} AND poster_id > 0 AND type = ANY(${sql.array([...participantCommentTypes], 'int4')})`);
  const of = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.user_id);
  return { watcherIds: of('watch'), unwatcherIds: of('unwatch'), participantIds: of('participant') };
}
