/**
 * The `sign_in_failures` table: the shared state of the sign-in throttle (domain/sign-in-throttle.ts). All time
 * arithmetic uses the database's clock, so replicas with drifting clocks still agree on windows and blocks.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { CounterReading, ThrottleCounter } from '../domain/sign-in-throttle';

const counterRow = z.object({
  key: z.string(),
  failures: z.number(),
  blocked_for_seconds: z.number(),
  success_age_seconds: z.number().nullable(),
});

export interface ThrottleTiming {
  windowSeconds: number;
  blockSeconds: number;
  knownAddressSeconds: number;
}

/** Rows swept per failure: bounded, so a write never turns into a long delete. */
const SWEEP_BATCH = 100;

/** The current state of the counters named by `keys` (only those that exist). */
export async function readCounters(db: CommonQueryMethods, keys: readonly string[]): Promise<CounterReading[]> {
  const rows = await db.any(sql.type(counterRow)`
    SELECT key, failures,
           GREATEST(0, ceil(extract(epoch FROM blocked_until - clock_timestamp())))::int AS blocked_for_seconds,
           floor(extract(epoch FROM clock_timestamp() - last_success_at))::int AS success_age_seconds
    FROM sign_in_failures WHERE key = ANY(${sql.array([...keys], 'text')})
  `);
  return rows.map((row) => ({
    key: row.key,
    failures: row.failures,
    blockedForSeconds: row.blocked_for_seconds,
    successAgeSeconds: row.success_age_seconds ?? undefined,
  }));
}

/**
 * Counts one failure on each counter in one statement (atomic per row, so concurrent replicas never lose a count):
 * a counter whose window is over starts again at 1; one that reaches its limit is blocked for `blockSeconds`
 * from now. Rows are upserted in the order given (sorted by key), so concurrent writers cannot deadlock.
 */
export async function recordFailure(
  db: CommonQueryMethods,
  counters: readonly ThrottleCounter[],
  timing: ThrottleTiming,
): Promise<void> {
  if (counters.length === 0) return;
  const window = sql.fragment`make_interval(secs => ${timing.windowSeconds})`;
  const block = sql.fragment`make_interval(secs => ${timing.blockSeconds})`;
  const known = sql.fragment`make_interval(secs => ${timing.knownAddressSeconds})`;
  // In DO UPDATE every expression sees the old row, so the new values are spelled out from it.
  const stale = sql.fragment`f.window_started_at <= now() - ${window}`;
  const failures = sql.fragment`(CASE WHEN ${stale} THEN 1 ELSE f.failures + 1 END)`;
  const started = sql.fragment`(CASE WHEN ${stale} THEN now() ELSE f.window_started_at END)`;
  const blocked = sql.fragment`(CASE WHEN ${failures} >= EXCLUDED.max_failures THEN now() + ${block} ELSE f.blocked_until END)`;
  await db.query(sql.unsafe`
    INSERT INTO sign_in_failures AS f (key, failures, max_failures, window_started_at, blocked_until, expires_at)
    SELECT c.key, 1, c.max_failures, now(),
           CASE WHEN c.max_failures <= 1 THEN now() + ${block} END,
           now() + GREATEST(${window}, ${block})
    FROM unnest(${sql.array(counters.map((c) => c.key), 'text')}, ${sql.array(counters.map((c) => c.maxFailures), 'int4')})
         AS c (key, max_failures)
    ON CONFLICT (key) DO UPDATE SET
      failures = ${failures},
      max_failures = EXCLUDED.max_failures,
      window_started_at = ${started},
      blocked_until = ${blocked},
      -- GREATEST skips nulls (no block, no success).
      expires_at = GREATEST(${started} + ${window}, ${blocked}, f.last_success_at + ${known})
  `);
  await db.query(sql.unsafe`
    DELETE FROM sign_in_failures WHERE key IN (
      SELECT key FROM sign_in_failures WHERE expires_at < now() LIMIT ${SWEEP_BATCH}
    )
  `);
}

/**
 * A successful sign-in on an (account, address) counter: its run of failures ends, and the address is
 * remembered as known until `knownAddressSeconds` from now (without that, the row goes).
 */
export async function recordSuccess(db: CommonQueryMethods, counter: ThrottleCounter, timing: ThrottleTiming): Promise<void> {
  if (timing.knownAddressSeconds === 0) {
    await db.query(sql.unsafe`DELETE FROM sign_in_failures WHERE key = ${counter.key}`);
    return;
  }
  const window = sql.fragment`make_interval(secs => ${timing.windowSeconds})`;
  const known = sql.fragment`make_interval(secs => ${timing.knownAddressSeconds})`;
  await db.query(sql.unsafe`
    INSERT INTO sign_in_failures (key, failures, max_failures, window_started_at, blocked_until, last_success_at, expires_at)
    VALUES (${counter.key}, 0, ${counter.maxFailures}, now(), NULL, now(), now() + GREATEST(${window}, ${known}))
    ON CONFLICT (key) DO UPDATE SET
      failures = 0, max_failures = EXCLUDED.max_failures, window_started_at = now(), blocked_until = NULL,
      last_success_at = now(), expires_at = EXCLUDED.expires_at
  `);
}
