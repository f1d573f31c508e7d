/**
 * A repository's issue list, newest (highest index) first.
 *
 * The plain list (state and kind only) is the hot path and never counts rows or skips them with OFFSET over the
 * whole list: the total is the trigger-kept `issue_counts`, and page p is found from `issue_blocks` (issues per
 * block of 1,024 indexes): summing the blocks from the highest down gives the block where the page starts and how
 * many of that block's issues come before it. The rows are then read from that block down through the
 * (repo_id, is_pull, is_closed, index DESC) index. Other filters take a regular query.
 */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';
import { ISSUE_COLUMNS, issueRow, type IssueRow } from './issues';
import { type IssueConditions, issueConditions } from './issue-filter';

/** log2 of the block size of `issue_blocks` (the migration's `index >> 10`). */
const BLOCK_BITS = 10;

export interface IssuePage {
  rows: IssueRow[];
  total: number;
}

export interface PlainListQuery {
  repoId: number;
  /** is_pull values listed. */
  kinds: readonly boolean[];
  /** is_closed values listed. */
  states: readonly boolean[];
  /** Rows to skip (page − 1) × limit, and rows to answer. */
  skip: number;
  limit: number;
}

const startRow = z.object({ total: z.number(), block: z.number().nullable(), before: z.number().nullable() });

/** Every (is_pull, is_closed) pair the query lists. */
function combinations(query: PlainListQuery): Array<[boolean, boolean]> {
  return query.kinds.flatMap((isPull) => query.states.map((isClosed): [boolean, boolean] => [isPull, isClosed]));
}

export async function plainIssuePage(db: CommonQueryMethods, query: PlainListQuery): Promise<IssuePage> {
  const kinds = sql.array([...query.kinds], 'bool');
  const states = sql.array([...query.states], 'bool');
  // One statement, so the total and the blocks come from one snapshot.
  const start = await db.one(sql.type(startRow)`
    WITH blocks AS (
      SELECT b.block, sum(b.n)::int8 AS n FROM issue_blocks b
      WHERE b.repo_id = ${query.repoId} AND b.is_pull = ANY(${kinds}) AND b.is_closed = ANY(${states}) AND b.n > 0
      GROUP BY b.block
    ), running AS (
      SELECT block, n, sum(n) OVER (ORDER BY block DESC) AS through FROM blocks
    )
    SELECT c.total, s.block, s.before
    FROM (SELECT coalesce(sum(n), 0)::int8 AS total FROM issue_counts
          WHERE repo_id = ${query.repoId} AND is_pull = ANY(${kinds}) AND is_closed = ANY(${states})) c
    LEFT JOIN LATERAL (
      SELECT block, (through - n)::int8 AS before FROM running WHERE through > ${query.skip} ORDER BY block DESC LIMIT 1
    ) s ON TRUE`);
  if (start.block === null || start.before === null || query.limit <= 0) return { rows: [], total: start.total };
  const bound = (start.block + 1) * 2 ** BLOCK_BITS;
  // Rows of the start block that come before the page: fewer than 1,024 (one block), so this OFFSET never walks
  // more than one block's index entries, whatever the page number.
  const inBlock = query.skip - start.before;
  const take = inBlock + query.limit;
  const parts = combinations(query).map(
    ([isPull, isClosed]) => sql.fragment`(SELECT ${ISSUE_COLUMNS} FROM issues i
      WHERE i.repo_id = ${query.repoId} AND i.is_pull = ${isPull} AND i.is_closed = ${isClosed} AND i.index < ${bound}
      ORDER BY i.index DESC LIMIT ${take})`,
  );
  const rows = await db.any(sql.type(issueRow)`
    SELECT i.* FROM (${sql.join(parts, sql.fragment` UNION ALL `)}) i ORDER BY i.index DESC OFFSET ${inBlock} LIMIT ${query.limit}`);
  return { rows: [...rows], total: start.total };
}

export interface FilteredListQuery {
  repoId: number;
  conditions: IssueConditions;
  skip: number;
  limit: number;
}

/** A page of one repository's issues under any of Gitea's filters: a regular query and a count. */
export async function filteredIssuePage(db: CommonQueryMethods, query: FilteredListQuery): Promise<IssuePage> {
  const where: FragmentSqlToken[] = [
    sql.fragment`i.repo_id = ${query.repoId}`,
    ...issueConditions(query.conditions, sql.fragment`c.repo_id = ${query.repoId}`),
  ];
  const condition = sql.join(where, sql.fragment` AND `);
  const [rows, total] = await Promise.all([
    db.any(sql.type(issueRow)`
      SELECT ${ISSUE_COLUMNS} FROM issues i WHERE ${condition} ORDER BY i.index DESC LIMIT ${query.limit} OFFSET ${query.skip}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM issues i WHERE ${condition}`),
  ]);
  return { rows: [...rows], total };
}
