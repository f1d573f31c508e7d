/**
 * The `activity_buckets` table: each user's contributions per 15-minute bucket and repository, added to by the
 * event consumers and summed per bucket for the heatmap.
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

/** Adds `count` contributions to the user's bucket in the repository. */
export async function addContributions(tx: DatabaseTransactionConnection, contribution: Contribution): Promise<void> {
  const { userId, repoId, bucket, count } = contribution;
  await tx.query(sql.unsafe`
    INSERT INTO activity_buckets (user_id, bucket, repo_id, contributions)
    VALUES (${userId}, to_timestamp(${bucket}), ${repoId}, ${count})
    ON CONFLICT (user_id, bucket, repo_id) DO UPDATE
      SET contributions = activity_buckets.contributions + EXCLUDED.contributions
  `);
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
