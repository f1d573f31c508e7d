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
  /** The repository was private when it happened. */
  isPrivate: boolean;
  count: number;
}

/**
 * Adds `count` contributions to the user's bucket. A bucket row holding activity from while the repository
 * was private stays private: if its privacy changed within the quarter hour, the bucket shows less rather
 * than more, and the result does not depend on the order events arrive in.
 */
export async function addContributions(tx: DatabaseTransactionConnection, contribution: Contribution): Promise<void> {
  const { userId, repoId, bucket, isPrivate, count } = contribution;
  await tx.query(sql.unsafe`
    INSERT INTO activity_buckets (user_id, bucket, repo_id, is_private, contributions)
    VALUES (${userId}, to_timestamp(${bucket}), ${repoId}, ${isPrivate}, ${count})
    ON CONFLICT (user_id, bucket, repo_id) DO UPDATE
      SET contributions = activity_buckets.contributions + EXCLUDED.contributions,
          is_private = activity_buckets.is_private OR EXCLUDED.is_private
  `);
}

const heatmapRow = z.object({ timestamp: z.number(), contributions: z.number() });
export type HeatmapRow = z.infer<typeof heatmapRow>;

function scopeCondition(scope: RepoScope) {
  if (scope.kind === 'all') return sql.fragment`TRUE`;
  return sql.fragment`((${scope.publicRepos} AND NOT is_private) OR repo_id = ANY(${sql.array(scope.repoIds, 'int8')}))`;
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
