/**
 * The lease both mirror tables share (0002_mirrors.sql): a mirror is due when a sync was asked for or its
 * `next_update` has come, and is claimed for `leaseMs` with `FOR UPDATE SKIP LOCKED`, so two replicas never claim
 * the same mirror at once and a claim whose holder died lapses. `attempts` fences: a sync's outcome is written only
 * by the claim that still holds the mirror.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';

export type MirrorTable = 'pull_mirrors' | 'push_mirrors';

export async function claimDueMirrors<T extends z.ZodTypeAny>(
  db: CommonQueryMethods,
  table: MirrorTable,
  row: T,
  limit: number,
  leaseMs: number,
): Promise<Array<z.infer<T>>> {
  const name = sql.identifier([table]);
  const rows = await db.any(sql.type(row)`
    WITH due AS (
      SELECT ctid FROM ${name}
      WHERE (requested_at IS NOT NULL OR next_update <= now()) AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY coalesce(requested_at, next_update)
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE ${name} m
    SET claimed_until = now() + make_interval(secs => ${leaseMs / 1000}), claimed_at = now(), attempts = m.attempts + 1
    FROM due WHERE m.ctid = due.ctid
    RETURNING m.*`);
  return [...rows];
}

/**
 * The fields a sync's end sets: the claim goes, the next periodic sync is `interval` from now (none for 0, Gitea's
 * ScheduleNextUpdate), and a request made while the sync ran stays for the next claim.
 */
export const SYNC_ENDED = sql.fragment`
  claimed_until = NULL,
  next_update = CASE WHEN interval_ms > 0 THEN now() + make_interval(secs => interval_ms / 1000.0) END,
  requested_at = CASE WHEN requested_at > claimed_at THEN requested_at END`;
