/**
 * Seeds one user's notification threads straight into the notifications service's schema, for the notifications
 * benchmark: one `INSERT … SELECT generate_series` in one transaction with the counters' trigger switched off
 * (`session_replication_role = replica`, which needs a superuser: a million row-level upserts of one counter row
 * take many minutes) and the user's `notification_counts` rebuilt with GROUP BY afterwards.
 *
 * Thread n (1 … count) is updated at SEED_EPOCH + n seconds, so the newest are the last; every 10th is read, every
 * 997th pinned, the rest unread; every 3rd points at a comment (id n). The newest `issueIds.length` threads name
 * those real issues (what page 1 shows, hydrated as they are); the others name issue ids no issue has.
 */
import type { Client } from 'pg';

export interface NotificationSeedOptions {
  userId: number;
  repoId: number;
  /** Real issues of the repository, for the newest threads. */
  issueIds: readonly number[];
  count: number;
}

export const NOTIFICATION_SEED_EPOCH = '2024-01-01T00:00:00Z';
/** Issue ids of the older threads start above this (no issue has such an id in a bench run). */
const FAKE_ISSUE_ID_BASE = 1_000_000_000_000;

export async function seedNotifications(client: Client, options: NotificationSeedOptions): Promise<{ loadMs: number; vacuumMs: number }> {
  const { userId, repoId, issueIds, count } = options;
  const startedAt = Date.now();
  const firstReal = count - issueIds.length;
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query('SET LOCAL synchronous_commit = off');
    await client.query(
      `INSERT INTO notifications.notification_threads
         (user_id, repo_id, subject_type, issue_id, issue_index, comment_id, status, updated_by, created_at, updated_at)
       SELECT $1, $2, 1,
              CASE WHEN n > $4 THEN ($5::bigint[])[n - $4] ELSE ${FAKE_ISSUE_ID_BASE} + n END,
              CASE WHEN n > $4 THEN n - $4 ELSE ${FAKE_ISSUE_ID_BASE} + n END,
              CASE WHEN n % 3 = 0 THEN n ELSE 0 END,
              CASE WHEN n % 10 = 0 THEN 2 WHEN n % 997 = 0 THEN 3 ELSE 1 END,
              $1, t, t
       FROM generate_series(1, $3::bigint) AS g(n), LATERAL (SELECT $6::timestamptz + n * interval '1 second' AS t) s`,
      [userId, repoId, count, firstReal, issueIds, NOTIFICATION_SEED_EPOCH],
    );
    // What the trigger would have kept (0004_notification_threads.sql), recounted for the user.
    await client.query('DELETE FROM notifications.notification_counts WHERE user_id = $1', [userId]);
    await client.query(
      `INSERT INTO notifications.notification_counts (user_id, status, threads)
       SELECT user_id, status, count(*) FROM notifications.notification_threads WHERE user_id = $1 GROUP BY 1, 2`,
      [userId],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  const loadMs = Date.now() - startedAt;
  await client.query('VACUUM (ANALYZE) notifications.notification_threads, notifications.notification_counts');
  return { loadMs, vacuumMs: Date.now() - startedAt - loadMs };
}
