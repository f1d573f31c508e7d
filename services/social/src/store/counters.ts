/**
 * The `repo_counters` table: each repository's stars and watchers, moved by one in the transaction that adds
 * or removes a star or a watch, and read back for lists' totals and repositories' counts.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { LinkTable } from './links';

export type Counter = 'stars' | 'watchers';

/** The counter each link table moves. */
export const COUNTER_OF: Readonly<Record<LinkTable, Counter>> = { stars: 'stars', watches: 'watchers' };

const countRow = z.object({ count: z.number() });

/** Adds `delta` to one counter of a repository and answers its new value. */
export async function moveCounter(tx: DatabaseTransactionConnection, repoId: number, counter: Counter, delta: 1 | -1): Promise<number> {
  const column = sql.identifier([counter]);
  const row = await tx.one(sql.type(countRow)`
    INSERT INTO repo_counters (repo_id, ${column}) VALUES (${repoId}, ${Math.max(delta, 0)})
    ON CONFLICT (repo_id) DO UPDATE SET ${column} = repo_counters.${column} + ${delta}
    RETURNING ${column} AS count
  `);
  return row.count;
}

/** One counter of a repository; 0 when nobody starred or watched it. */
export async function readCounter(db: CommonQueryMethods, repoId: number, counter: Counter): Promise<number> {
  const column = sql.identifier([counter]);
  const row = await db.maybeOne(sql.type(countRow)`SELECT ${column} AS count FROM repo_counters WHERE repo_id = ${repoId}`);
  return row?.count ?? 0;
}

const countersRow = z.object({ repo_id: z.number(), stars: z.number(), watchers: z.number() });
export type CountersRow = z.infer<typeof countersRow>;

/** The counters of the repositories among `repoIds` that have a row (in no particular order). */
export function readCounters(db: CommonQueryMethods, repoIds: readonly number[]): Promise<readonly CountersRow[]> {
  return db.any(sql.type(countersRow)`
    SELECT repo_id, stars, watchers FROM repo_counters WHERE repo_id = ANY(${sql.array([...repoIds], 'int8')})
  `);
}
