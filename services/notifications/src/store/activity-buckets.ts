/**
 * The `activity_buckets` table: each user's contributions per 15-minute bucket and repository, added to by the
 * event consumers, summed per bucket for the heatmap and forgotten with their repository (`deleted_repos`).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { RepoScope } from '../domain/activity-visibility';

export interface Contribution {
  userId: number;
  repoId: number;
  /** Bucket start, unix seconds (a multiple of 900). */
  bucket: number;
  count: number;
}

/**
 * First key of the two-int advisory lock on one repository's activity (second key: hashint8(repo id)), apart from
 * the one-bigint keys other services lock with in the same database.
 */
const REPO_ACTIVITY_LOCK_CLASS = 0x0ca1_a4;

/**
 * Serialises an addition to a repository's activity with that repository's deletion until the transaction ends:
 * without it, an addition could check for the deletion before it commits and insert after the deletion ran,
 * bringing the deleted repository's activity back.
 */
async function lockRepoActivity(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${REPO_ACTIVITY_LOCK_CLASS}, hashint8(${repoId}::int8))`);
}

/** Adds `count` contributions to the user's bucket in the repository, unless the repository was deleted. */
export async function addContributions(tx: DatabaseTransactionConnection, contribution: Contribution): Promise<void> {
  const { userId, repoId, bucket, count } = contribution;
  await lockRepoActivity(tx, repoId);
  await tx.query(sql.unsafe`
    INSERT INTO activity_buckets (user_id, bucket, repo_id, contributions)
    SELECT ${userId}, to_timestamp(${bucket}), ${repoId}, ${count}
    WHERE NOT EXISTS (SELECT FROM deleted_repos WHERE repo_id = ${repoId})
    ON CONFLICT (user_id, bucket, repo_id) DO UPDATE
      SET contributions = activity_buckets.contributions + EXCLUDED.contributions
  `);
}

/**
 * Forgets a deleted repository's activity, every user's (Gitea deletes a repository's actions with it), and
 * remembers the deletion so that later additions to it are dropped.
 */
export async function forgetRepoActivity(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await lockRepoActivity(tx, repoId);
  await tx.query(sql.unsafe`INSERT INTO deleted_repos (repo_id) VALUES (${repoId}) ON CONFLICT DO NOTHING`);
  await tx.query(sql.unsafe`DELETE FROM activity_buckets WHERE repo_id = ${repoId}`);
}

const repoIdRow = z.object({ repo_id: z.number() });

/**
 * The repositories of the user's activity from bucket `since` (unix seconds) on, each once, in id order: what
 * the viewer's access is asked about. The same range scan of the key as the heatmap itself.
 */
export async function activityRepoIds(db: CommonQueryMethods, userId: number, since: number): Promise<readonly number[]> {
  const rows = await db.any(sql.type(repoIdRow)`
    SELECT DISTINCT repo_id FROM activity_buckets
    WHERE user_id = ${userId} AND bucket >= to_timestamp(${since})
    ORDER BY repo_id
  `);
  return rows.map((row) => row.repo_id);
}

const heatmapRow = z.object({ timestamp: z.number(), contributions: z.number() });
export type HeatmapRow = z.infer<typeof heatmapRow>;

function scopeCondition(scope: RepoScope) {
  if (scope.kind === 'all') return sql.fragment`TRUE`;
  return sql.fragment`repo_id = ANY(${sql.array(scope.repoIds, 'int8')})`;
}

/** The user's contributions per bucket from bucket `since` (unix seconds) on, in `scope`, oldest first. */
export function heatmapRows(db: CommonQueryMethods, userId: number, since: number, scope: RepoScope): Promise<readonly HeatmapRow[]> {
  return db.any(sql.type(heatmapRow)`
    SELECT extract(epoch FROM bucket)::int8 AS timestamp, sum(contributions)::int8 AS contributions
    FROM activity_buckets
    WHERE user_id = ${userId} AND bucket >= to_timestamp(${since}) AND ${scopeCondition(scope)}
    GROUP BY bucket
    ORDER BY bucket
  `);
}
