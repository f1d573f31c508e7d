/** The `commit_statuses` table and its per-commit index counter (`commit_status_indexes`). */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { PageWindow } from '../domain/paging';
import { COMMIT_STATUS_STATES, contextHash, type CommitStatusState, type NewStatusFields, type StatusOrder } from '../domain/commit-status';

const statusRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  sha: z.string(),
  index: z.number(),
  state: z.enum(COMMIT_STATUS_STATES),
  target_url: z.string(),
  description: z.string(),
  context: z.string(),
  creator_id: z.number(),
  created: z.date(),
  updated: z.date(),
});
type StatusColumns = z.infer<typeof statusRow>;

export interface StoredStatus {
  id: number;
  repoId: number;
  sha: string;
  /** 1, 2, … per repository and commit. */
  index: number;
  state: CommitStatusState;
  targetUrl: string;
  description: string;
  context: string;
  creatorId: number;
  created: Date;
  updated: Date;
}

function toStatus(row: StatusColumns): StoredStatus {
  return {
    id: row.id,
    repoId: row.repo_id,
    sha: row.sha,
    index: row.index,
    state: row.state,
    targetUrl: row.target_url,
    description: row.description,
    context: row.context,
    creatorId: row.creator_id,
    created: row.created,
    updated: row.updated,
  };
}

const COLUMNS = sql.join(
  Object.keys(statusRow.shape).map((name) => sql.identifier([name])),
  sql.fragment`, `,
);

/** Records a status with the commit's next index (the counter row is bumped in the same transaction). */
export async function insertStatus(
  tx: DatabaseTransactionConnection,
  status: NewStatusFields & { repoId: number; sha: string; creatorId: number },
): Promise<StoredStatus> {
  const row = await tx.one(sql.type(statusRow)`
    WITH next AS (
      INSERT INTO commit_status_indexes (repo_id, sha, max_index) VALUES (${status.repoId}, ${status.sha}, 1)
      ON CONFLICT (repo_id, sha) DO UPDATE SET max_index = commit_status_indexes.max_index + 1
      RETURNING max_index
    )
    INSERT INTO commit_statuses (repo_id, sha, index, state, target_url, description, context, context_hash, creator_id)
    SELECT ${status.repoId}, ${status.sha}, next.max_index, ${status.state}, ${status.targetUrl}, ${status.description},
      ${status.context}, ${contextHash(status.context)}, ${status.creatorId}
    FROM next
    RETURNING ${COLUMNS}
  `);
  return toStatus(row);
}

const ORDER_COLUMNS = { created: sql.identifier(['created']), updated: sql.identifier(['updated']), index: sql.identifier(['index']) } as const;

/** One page of a commit's statuses (all of them without a window) and how many there are, optionally of one state. */
export async function listStatuses(
  db: CommonQueryMethods,
  query: { repoId: number; sha: string; state: CommitStatusState | undefined; order: StatusOrder; window: PageWindow | undefined },
): Promise<{ statuses: StoredStatus[]; total: number }> {
  const stateCondition = query.state === undefined ? sql.fragment`TRUE` : sql.fragment`state = ${query.state}`;
  const direction = query.order.descending ? sql.fragment`DESC` : sql.fragment`ASC`;
  const where = sql.fragment`repo_id = ${query.repoId} AND sha = ${query.sha} AND ${stateCondition}`;
  const page = query.window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${query.window.limit} OFFSET ${query.window.offset}`;
  // Statuses of one commit are few; the index breaks ties between statuses created in the same instant.
  const rows = await db.any(sql.type(statusRow)`
    SELECT ${COLUMNS} FROM commit_statuses WHERE ${where}
    ORDER BY ${ORDER_COLUMNS[query.order.column]} ${direction}, index ${direction}
    ${page}
  `);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM commit_statuses WHERE ${where}`);
  return { statuses: rows.map(toStatus), total };
}

/**
 * The latest status of every context of a commit, newest first (Gitea's `GetLatestCommitStatus`). A commit has a
 * handful of contexts, so all of them are read: the combined state covers every context, not one page.
 */
export async function latestStatuses(db: CommonQueryMethods, repoId: number, sha: string): Promise<StoredStatus[]> {
  const rows = await db.any(sql.type(statusRow)`
    SELECT * FROM (
      SELECT DISTINCT ON (context_hash) ${COLUMNS}
      FROM commit_statuses WHERE repo_id = ${repoId} AND sha = ${sha}
      ORDER BY context_hash, index DESC
    ) AS latest
    ORDER BY index DESC
  `);
  return rows.map(toStatus);
}
