/** Teams: `teams` with their `team_units`. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type SqlToken } from '@cairn/db';
import { AccessMode, isAccessMode, type TeamAccess, type TeamUnitAccess } from '../domain/team-units';
import type { PageWindow } from '../domain/user-search';

export const OWNERS_TEAM_NAME = 'Owners';

const teamColumnsRow = z.object({
  id: z.number(),
  org_id: z.number(),
  name: z.string(),
  description: z.string(),
  access_mode: z.number().refine(isAccessMode),
  includes_all_repositories: z.boolean(),
  can_create_org_repo: z.boolean(),
});
type TeamColumns = z.infer<typeof teamColumnsRow>;

/** A team as stored, with its units. */
export interface TeamRecord {
  id: number;
  orgId: number;
  name: string;
  description: string;
  access: TeamAccess;
  includesAllRepositories: boolean;
  canCreateOrgRepo: boolean;
}

export function isOwnersTeam(team: TeamRecord): boolean {
  return team.access.accessMode === AccessMode.Owner;
}

const TEAM_COLUMNS = sql.join(
  Object.keys(teamColumnsRow.shape).map((name) => sql.identifier(['teams', name])),
  sql.fragment`, `,
);

const unitRow = z.object({ team_id: z.number(), type: z.number(), access_mode: z.number().refine(isAccessMode) });

async function withUnits(db: CommonQueryMethods, rows: readonly TeamColumns[]): Promise<TeamRecord[]> {
  if (rows.length === 0) return [];
  const units = await db.any(sql.type(unitRow)`
    SELECT team_id, type, access_mode FROM team_units
    WHERE team_id = ANY(${sql.array(rows.map((row) => row.id), 'int8')}) ORDER BY team_id, type
  `);
  return rows.map((row) => ({
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    description: row.description,
    access: {
      accessMode: row.access_mode as AccessMode,
      units: units.filter((unit) => unit.team_id === row.id).map((unit) => ({ type: unit.type, accessMode: unit.access_mode as AccessMode })),
    },
    includesAllRepositories: row.includes_all_repositories,
    canCreateOrgRepo: row.can_create_org_repo,
  }));
}

async function replaceUnits(tx: DatabaseTransactionConnection, teamId: number, units: readonly TeamUnitAccess[]): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM team_units WHERE team_id = ${teamId}`);
  if (units.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO team_units (team_id, type, access_mode)
    SELECT ${teamId}, type, access_mode
    FROM unnest(${sql.array(units.map((u) => u.type), 'int2')}, ${sql.array(units.map((u) => u.accessMode), 'int2')}) AS u(type, access_mode)
  `);
}

export interface NewTeam {
  orgId: number;
  name: string;
  description: string;
  access: TeamAccess;
  includesAllRepositories: boolean;
  canCreateOrgRepo: boolean;
}

export async function insertTeam(tx: DatabaseTransactionConnection, team: NewTeam): Promise<TeamRecord> {
  const row = await tx.one(sql.type(teamColumnsRow)`
    INSERT INTO teams (org_id, name, lower_name, description, access_mode, includes_all_repositories, can_create_org_repo)
    VALUES (${team.orgId}, ${team.name}, ${team.name.toLowerCase()}, ${team.description}, ${team.access.accessMode},
            ${team.includesAllRepositories}, ${team.canCreateOrgRepo})
    RETURNING ${TEAM_COLUMNS}
  `);
  await replaceUnits(tx, row.id, team.access.units);
  const [record] = await withUnits(tx, [row]);
  return record;
}

export async function findTeam(db: CommonQueryMethods, id: number): Promise<TeamRecord | null> {
  const row = await db.maybeOne(sql.type(teamColumnsRow)`SELECT ${TEAM_COLUMNS} FROM teams WHERE id = ${id}`);
  return row === null ? null : (await withUnits(db, [row]))[0];
}

/** The teams among `ids` that exist, by id. */
export async function findTeams(db: CommonQueryMethods, ids: readonly number[]): Promise<TeamRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(teamColumnsRow)`SELECT ${TEAM_COLUMNS} FROM teams WHERE id = ANY(${sql.array(ids, 'int8')}) ORDER BY id`);
  return withUnits(db, rows);
}

/** Whether the organization has a team of that name (any case), other than `exceptId`. */
export function teamNameTaken(db: CommonQueryMethods, orgId: number, name: string, exceptId = 0): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM teams WHERE org_id = ${orgId} AND lower_name = ${name.toLowerCase()} AND id <> ${exceptId}`);
}

const countRow = z.object({ count: z.number() });

function paging(window: PageWindow | undefined): SqlToken {
  return window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
}

export interface TeamSearch {
  orgId: number;
  /** A LIKE pattern over the lower-case name (and description with `includeDescription`); none: every team. */
  pattern?: string;
  includeDescription: boolean;
  /** > 0: only teams this user is in. */
  memberId: number;
}

/** A page of the organization's teams matching `search`, by lower-case name (Gitea's `SearchTeam`), and their total. */
export async function searchTeams(
  db: CommonQueryMethods,
  search: TeamSearch,
  window: PageWindow | undefined,
): Promise<{ teams: TeamRecord[]; total: number }> {
  const conditions: SqlToken[] = [sql.fragment`teams.org_id = ${search.orgId}`];
  if (search.pattern !== undefined) {
    conditions.push(
      search.includeDescription
        ? sql.fragment`(teams.lower_name LIKE ${search.pattern} OR lower(teams.description) LIKE ${search.pattern})`
        : sql.fragment`teams.lower_name LIKE ${search.pattern}`,
    );
  }
  if (search.memberId > 0) {
    conditions.push(sql.fragment`teams.id IN (SELECT team_id FROM team_users WHERE uid = ${search.memberId})`);
  }
  const where = sql.join(conditions, sql.fragment` AND `);
  const rows = await db.any(sql.type(teamColumnsRow)`
    SELECT ${TEAM_COLUMNS} FROM teams WHERE ${where} ORDER BY teams.lower_name, teams.id ${paging(window)}
  `);
  const { count } = await db.one(sql.type(countRow)`SELECT count(*)::int AS count FROM teams WHERE ${where}`);
  return { teams: await withUnits(db, rows), total: count };
}

export interface TeamChanges {
  name?: string;
  description?: string;
  access?: TeamAccess;
  includesAllRepositories?: boolean;
  canCreateOrgRepo?: boolean;
}

export async function updateTeam(tx: DatabaseTransactionConnection, id: number, changes: TeamChanges): Promise<TeamRecord> {
  const assignments: SqlToken[] = [sql.fragment`updated_at = now()`];
  if (changes.name !== undefined) assignments.push(sql.fragment`name = ${changes.name}, lower_name = ${changes.name.toLowerCase()}`);
  if (changes.description !== undefined) assignments.push(sql.fragment`description = ${changes.description}`);
  if (changes.access !== undefined) assignments.push(sql.fragment`access_mode = ${changes.access.accessMode}`);
  if (changes.includesAllRepositories !== undefined) assignments.push(sql.fragment`includes_all_repositories = ${changes.includesAllRepositories}`);
  if (changes.canCreateOrgRepo !== undefined) assignments.push(sql.fragment`can_create_org_repo = ${changes.canCreateOrgRepo}`);
  const row = await tx.one(sql.type(teamColumnsRow)`
    UPDATE teams SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id} RETURNING ${TEAM_COLUMNS}
  `);
  if (changes.access !== undefined) await replaceUnits(tx, id, changes.access.units);
  return (await withUnits(tx, [row]))[0];
}

/** The teams `uid` is in: of one organization, or of every organization when `orgId` is 0; by organization and name. */
export async function listUserTeams(db: CommonQueryMethods, uid: number, orgId: number): Promise<TeamRecord[]> {
  const inOrg = orgId === 0 ? sql.fragment`` : sql.fragment`AND member.org_id = ${orgId}`;
  const rows = await db.any(sql.type(teamColumnsRow)`
    SELECT ${TEAM_COLUMNS} FROM teams JOIN team_users member ON member.team_id = teams.id AND member.uid = ${uid} ${inOrg}
    ORDER BY teams.org_id, teams.lower_name, teams.id
  `);
  return withUnits(db, rows);
}

/** Deletes the team; its units and memberships go with it (ON DELETE CASCADE). */
export async function deleteTeam(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM teams WHERE id = ${id}`);
}
