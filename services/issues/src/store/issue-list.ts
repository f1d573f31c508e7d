/**
 * A repository's issue list, newest (highest index) first, as Issue messages: the page and its hydration (labels,
 * milestone, assignees) come from one statement.
 *
 * The plain list (state and kind only) is the hot path and never counts rows or skips them with OFFSET over the
 * whole list: the total is the trigger-kept `issue_counts`, and page p is found from `issue_blocks` (issues per
 * block of 1,024 indexes): walking the blocks from the highest down with a running sum gives the block where the
 * page starts and how many of that block's issues come before it. The walk streams (a backward primary-key scan per
 * listed kind and state, merged, with running sums over whole blocks — a RANGE frame, so no grouping step that the
 * planner might do by hashing every block) and stops at that block, so page p reads about p × limit / 1,024 block
 * rows per listed kind and state, not all of them. The rows are then read from that block down through the
 * (repo_id, is_pull, is_closed, index DESC) index. Other filters take a regular query and a count.
 */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { HYDRATED_ISSUE_COLUMNS, HYDRATED_ISSUE_SHAPE, ISSUE_COLUMNS, hydratedIssueRow, toHydratedIssue, type IssueRow } from './issues';
import { isNumber, rowShape } from './row-shape';
import { type IssueConditions, issueConditions } from './issue-filter';

/** The block size of `issue_blocks` (the migration's `index >> 10`). */
const BLOCK_SIZE = 1024;

/** A page of rows and how many the whole list holds (the cross-repository search answers this). */
export interface IssuePage {
  rows: IssueRow[];
  total: number;
}

/** A page of issues and how many the whole list holds. */
export interface IssueList {
  issues: Issue[];
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

const listedRow = rowShape({ ...HYDRATED_ISSUE_SHAPE, total: isNumber });
const totalRow = z.object({ total: z.number() });

/** Every (is_pull, is_closed) pair the query lists. */
function combinations(query: PlainListQuery): Array<[boolean, boolean]> {
  return query.kinds.flatMap((isPull) => query.states.map((isClosed): [boolean, boolean] => [isPull, isClosed]));
}

function totalOf(query: PlainListQuery): FragmentSqlToken {
  return sql.fragment`SELECT coalesce(sum(c.n), 0)::int8 FROM issue_counts c
    WHERE c.repo_id = ${query.repoId} AND c.is_pull = ANY(${sql.array([...query.kinds], 'bool')}) AND c.is_closed = ANY(${sql.array([...query.states], 'bool')})`;
}

export async function plainIssueList(db: CommonQueryMethods, query: PlainListQuery): Promise<IssueList> {
  const pairs = combinations(query);
  if (pairs.length > 0 && query.limit > 0) {
    const blocks = pairs.map(
      ([isPull, isClosed]) => sql.fragment`(SELECT b.block, b.n FROM issue_blocks b
        WHERE b.repo_id = ${query.repoId} AND b.is_pull = ${isPull} AND b.is_closed = ${isClosed} ORDER BY b.block DESC)`,
    );
    // `walk.before`: rows of the blocks above the start block. What the page skips of the start block is fewer than
    // 1,024 (one block), so its OFFSET never walks more than one block's index entries, whatever the page number,
    // and no branch gives more than a block and a page. That bound is also what the planner needs to know: the
    // start block and the OFFSET come from `walk`, unknown when planning, and without it a deep page of a sparse
    // list was planned as a bitmap scan and sort of everything below the block (200 ms instead of 1).
    const issues = pairs.map(
      ([isPull, isClosed]) => sql.fragment`(SELECT ${ISSUE_COLUMNS} FROM issues i
        WHERE i.repo_id = ${query.repoId} AND i.is_pull = ${isPull} AND i.is_closed = ${isClosed}
          AND i.index < (SELECT (w.block + 1) * ${BLOCK_SIZE}::int8 FROM walk w) ORDER BY i.index DESC LIMIT ${BLOCK_SIZE + query.limit})`,
    );
    // One statement: the total, the blocks and the rows come from one snapshot. Each (kind, state) branch is ordered
    // on its own, so the planner merges the branches' backward index scans (Merge Append) and stops early instead
    // of reading and sorting them whole. The hydration runs on the page's rows only (outside the OFFSET).
    const rows = await db.any(sql.type(listedRow)`
      WITH walk AS (
        SELECT r.block, r.before FROM (
          SELECT u.block,
            coalesce(sum(u.n) OVER (ORDER BY u.block DESC RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int8 AS before,
            (sum(u.n) OVER (ORDER BY u.block DESC))::int8 AS through
          FROM (${sql.join(blocks, sql.fragment` UNION ALL `)}) u
        ) r
        WHERE r.through > ${query.skip}::int8 ORDER BY r.block DESC LIMIT 1
      ), page AS (
        SELECT * FROM (${sql.join(issues, sql.fragment` UNION ALL `)}) u
        ORDER BY u.index DESC OFFSET ${query.skip}::int8 - (SELECT w.before FROM walk w) LIMIT ${query.limit}
      )
      SELECT (${totalOf(query)}) AS total, ${HYDRATED_ISSUE_COLUMNS} FROM page i ORDER BY i.index DESC`);
    if (rows.length > 0) return { issues: rows.map(toHydratedIssue), total: rows[0].total };
  }
  // Past the end (or nothing listed): no rows to carry the total.
  const { total } = await db.one(sql.type(totalRow)`SELECT (${totalOf(query)}) AS total`);
  return { issues: [], total };
}

export interface FilteredListQuery {
  repoId: number;
  conditions: IssueConditions;
  skip: number;
  limit: number;
}

/** A page of one repository's issues under any of Gitea's filters: a regular query and a count. */
export async function filteredIssueList(db: CommonQueryMethods, query: FilteredListQuery): Promise<IssueList> {
  const where: FragmentSqlToken[] = [
    sql.fragment`i.repo_id = ${query.repoId}`,
    ...issueConditions(query.conditions, sql.fragment`c.repo_id = ${query.repoId}`),
  ];
  const condition = sql.join(where, sql.fragment` AND `);
  const [rows, total] = await Promise.all([
    // The page in a subquery, so that the hydration runs on its rows only.
    db.any(sql.type(hydratedIssueRow)`
      SELECT ${HYDRATED_ISSUE_COLUMNS} FROM (
        SELECT ${ISSUE_COLUMNS} FROM issues i WHERE ${condition} ORDER BY i.index DESC LIMIT ${query.limit} OFFSET ${query.skip}
      ) i ORDER BY i.index DESC`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM issues i WHERE ${condition}`),
  ]);
  return { issues: rows.map(toHydratedIssue), total };
}
