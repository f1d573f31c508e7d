/** The `milestones` table. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import type { PageWindow } from '../domain/paging';
import { containsPattern } from './issue-filter';
import { MILESTONE_COLUMNS, milestoneRow, type MilestoneRow } from './issues';

/** A milestone of repository `repoId` by id; NOT_FOUND (reason milestone_not_found) when it has none by that id. */
export async function requireMilestone(db: CommonQueryMethods, repoId: number, id: number): Promise<MilestoneRow> {
  const row = Number.isSafeInteger(id) && id > 0
    ? await db.maybeOne(sql.type(milestoneRow)`SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.repo_id = ${repoId} AND m.id = ${id}`)
    : null;
  if (row === null) throw CairnError.notFound(`milestone does not exist [id: ${id}, repo_id: ${repoId}]`, { reason: 'milestone_not_found' });
  return row;
}

/** Which milestones a list shows: open ones, closed ones, or all. */
export type MilestoneStateFilter = 'open' | 'closed' | 'all';

/**
 * A page of the repository's milestones in Gitea's default order (nearest due date first, those without one last,
 * then by id), with how many match. `name` keeps those whose title contains it, case-insensitively.
 */
export async function listMilestones(
  db: CommonQueryMethods,
  repoId: number,
  filter: { state: MilestoneStateFilter; name: string; window: PageWindow | undefined },
): Promise<{ rows: MilestoneRow[]; total: number }> {
  const state = filter.state === 'all' ? sql.fragment`TRUE` : sql.fragment`m.is_closed = ${filter.state === 'closed'}`;
  const name = filter.name === '' ? sql.fragment`TRUE` : sql.fragment`m.title ILIKE ${containsPattern(filter.name)}`;
  const where = sql.fragment`m.repo_id = ${repoId} AND ${state} AND ${name}`;
  const page = filter.window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${filter.window.limit} OFFSET ${filter.window.offset}`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(milestoneRow)`SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE ${where} ORDER BY m.due_on ASC NULLS LAST, m.id ${page}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM milestones m WHERE ${where}`),
  ]);
  return { rows: [...rows], total };
}

/**
 * The milestone a route's `{id}` names (domain/milestone-ref.ts): by id when it is a number some milestone of the
 * repository has, else by exact title; null when neither.
 */
export async function findMilestoneByRef(db: CommonQueryMethods, repoId: number, id: number, title: string): Promise<MilestoneRow | null> {
  if (Number.isSafeInteger(id) && id > 0) {
    const byId = await db.maybeOne(sql.type(milestoneRow)`SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.repo_id = ${repoId} AND m.id = ${id}`);
    if (byId !== null) return byId;
  }
  return db.maybeOne(sql.type(milestoneRow)`
    SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.repo_id = ${repoId} AND m.title = ${title} ORDER BY m.id LIMIT 1`);
}

export interface MilestoneValues {
  title: string;
  description: string;
  closed: boolean;
  dueOn: Date | null;
}

export async function insertMilestone(tx: DatabaseTransactionConnection, repoId: number, values: MilestoneValues): Promise<MilestoneRow> {
  return tx.one(sql.type(milestoneRow)`
    INSERT INTO milestones AS m (repo_id, title, description, is_closed, closed_at, due_on)
    VALUES (${repoId}, ${values.title}, ${values.description}, ${values.closed}, ${values.closed ? sql.fragment`now()` : null},
            ${values.dueOn === null ? null : sql.timestamp(values.dueOn)})
    RETURNING ${MILESTONE_COLUMNS}`);
}

/** Stores new values: closing sets closed_at to now, reopening clears it, staying closed keeps it. */
export async function updateMilestone(tx: DatabaseTransactionConnection, id: number, values: MilestoneValues): Promise<MilestoneRow> {
  return tx.one(sql.type(milestoneRow)`
    UPDATE milestones AS m SET title = ${values.title}, description = ${values.description}, is_closed = ${values.closed},
      closed_at = ${values.closed ? sql.fragment`CASE WHEN m.is_closed THEN m.closed_at ELSE now() END` : null},
      due_on = ${values.dueOn === null ? null : sql.timestamp(values.dueOn)}, updated = now()
    WHERE m.id = ${id}
    RETURNING ${MILESTONE_COLUMNS}`);
}

/** Deletes the milestone; its issues stay, without a milestone (issues.milestone_id is ON DELETE SET NULL). */
export async function deleteMilestone(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM milestones WHERE id = ${id}`);
}
