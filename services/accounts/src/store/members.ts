/**
 * Membership: `org_users` (who belongs to an organization, and whether that is public) and `team_users` (who is
 * in which team). A member of an organization is in at least one of its teams; the handlers keep both in step.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type SqlToken } from '@cairn/db';
import type { MemberListScope } from '../domain/org-access';
import type { UserListScope } from '../domain/visibility-rules';
import { AccessMode } from '../domain/team-units';
import type { PageWindow } from '../domain/user-search';
import { userColumns, userRow, type UserRow } from './users';
import { userListScopeCondition } from './visibility-facts';

const standingRow = z.object({ is_member: z.boolean(), is_owner: z.boolean() });

/** Whether `uid` is a member and an owner (in the Owners team) of the organization; uid 0 is neither. */
export async function orgStanding(db: CommonQueryMethods, orgId: number, uid: number): Promise<{ isMember: boolean; isOwner: boolean }> {
  if (uid <= 0) return { isMember: false, isOwner: false };
  const row = await db.one(sql.type(standingRow)`
    SELECT EXISTS (SELECT 1 FROM org_users WHERE org_id = ${orgId} AND uid = ${uid}) AS is_member,
           EXISTS (SELECT 1 FROM team_users tu JOIN teams t ON t.id = tu.team_id
                   WHERE tu.org_id = ${orgId} AND tu.uid = ${uid} AND t.access_mode = ${AccessMode.Owner}) AS is_owner
  `);
  return { isMember: row.is_member, isOwner: row.is_owner };
}

export function isTeamMember(db: CommonQueryMethods, teamId: number, uid: number): Promise<boolean> {
  if (uid <= 0) return Promise.resolve(false);
  return db.exists(sql.unsafe`SELECT 1 FROM team_users WHERE team_id = ${teamId} AND uid = ${uid}`);
}

const membershipRow = z.object({ is_public: z.boolean() });

/** The membership of `uid` in the organization, or null. */
export function findMembership(db: CommonQueryMethods, orgId: number, uid: number): Promise<{ is_public: boolean } | null> {
  return db.maybeOne(sql.type(membershipRow)`SELECT is_public FROM org_users WHERE org_id = ${orgId} AND uid = ${uid}`);
}

/** Makes `uid` a member; false when they already were. */
export async function addOrgUser(tx: DatabaseTransactionConnection, orgId: number, uid: number, isPublic: boolean): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO org_users (org_id, uid, is_public) VALUES (${orgId}, ${uid}, ${isPublic}) ON CONFLICT DO NOTHING
  `);
  return result.rowCount > 0;
}

/** Ends the membership and every team membership in the organization. */
export async function removeOrgUser(tx: DatabaseTransactionConnection, orgId: number, uid: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM team_users WHERE org_id = ${orgId} AND uid = ${uid}`);
  await tx.query(sql.unsafe`DELETE FROM org_users WHERE org_id = ${orgId} AND uid = ${uid}`);
}

/** Shows or hides the membership; false when there is no such membership or nothing changes. */
export async function setMembershipPublic(tx: DatabaseTransactionConnection, orgId: number, uid: number, isPublic: boolean): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    UPDATE org_users SET is_public = ${isPublic} WHERE org_id = ${orgId} AND uid = ${uid} AND is_public <> ${isPublic}
  `);
  return result.rowCount > 0;
}

/** Adds `uid` to the team; false when already in it. */
export async function addTeamUser(tx: DatabaseTransactionConnection, team: { id: number; orgId: number }, uid: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO team_users (team_id, org_id, uid) VALUES (${team.id}, ${team.orgId}, ${uid}) ON CONFLICT DO NOTHING
  `);
  return result.rowCount > 0;
}

/** Removes `uid` from the team; false when not in it. */
export async function removeTeamUser(tx: DatabaseTransactionConnection, teamId: number, uid: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`DELETE FROM team_users WHERE team_id = ${teamId} AND uid = ${uid}`);
  return result.rowCount > 0;
}

/** The organizations `uid` is a member of. */
export function orgIdsOf(db: CommonQueryMethods, uid: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ org_id: z.number() }))`SELECT org_id FROM org_users WHERE uid = ${uid} ORDER BY org_id`);
}

/** Whether `uid` is still in any team of the organization. */
export function inAnyTeam(db: CommonQueryMethods, orgId: number, uid: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM team_users WHERE org_id = ${orgId} AND uid = ${uid}`);
}

const countRow = z.object({ count: z.number() });

/** Members of the organization's Owners team. */
export async function countOwners(db: CommonQueryMethods, orgId: number): Promise<number> {
  return (
    await db.one(sql.type(countRow)`
      SELECT count(*)::int AS count FROM team_users tu JOIN teams t ON t.id = tu.team_id
      WHERE t.org_id = ${orgId} AND t.access_mode = ${AccessMode.Owner}
    `)
  ).count;
}

export async function countTeamMembers(db: CommonQueryMethods, teamId: number): Promise<number> {
  return (await db.one(sql.type(countRow)`SELECT count(*)::int AS count FROM team_users WHERE team_id = ${teamId}`)).count;
}

/** The ids of the members of a team (for what a team deletion leaves behind). */
export function teamMemberIds(db: CommonQueryMethods, teamId: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ uid: z.number() }))`SELECT uid FROM team_users WHERE team_id = ${teamId}`);
}

function paging(window: PageWindow | undefined): SqlToken {
  return window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
}

function membershipCondition(scope: MemberListScope, orgId: number, viewerId: number): SqlToken {
  switch (scope.memberships) {
    case 'all':
      return sql.fragment`true`;
    case 'public':
      return sql.fragment`membership.is_public`;
    case 'team_mates_and_public':
      return sql.fragment`(membership.is_public OR users.id IN (
        SELECT mates.uid FROM team_users mates JOIN team_users mine ON mine.team_id = mates.team_id
        WHERE mine.org_id = ${orgId} AND mine.uid = ${viewerId}
      ))`;
  }
}

const USER_COLUMNS = userColumns('users');

/** A page of the organization's members within `scope`, alphabetical, and their total. */
export async function listMembers(
  db: CommonQueryMethods,
  orgId: number,
  scope: MemberListScope,
  viewerId: number,
  window: PageWindow | undefined,
): Promise<{ rows: readonly UserRow[]; total: number }> {
  const from = sql.fragment`users JOIN org_users membership ON membership.uid = users.id AND membership.org_id = ${orgId}`;
  const where = sql.fragment`${membershipCondition(scope, orgId, viewerId)} AND ${userListScopeCondition(scope.users)}`;
  const rows = await db.any(sql.type(userRow)`
    SELECT ${USER_COLUMNS} FROM ${from} WHERE ${where} ORDER BY users.lower_name, users.id ${paging(window)}
  `);
  const { count } = await db.one(sql.type(countRow)`SELECT count(*)::int AS count FROM ${from} WHERE ${where}`);
  return { rows, total: count };
}

/**
 * A page of the team's members in `users` (Gitea orders them by full name, then name), and their total: the
 * counter query for the whole team, a count of the same condition otherwise.
 */
export async function listTeamMembers(
  db: CommonQueryMethods,
  teamId: number,
  window: PageWindow | undefined,
  users: UserListScope,
): Promise<{ rows: readonly UserRow[]; total: number }> {
  const from = sql.fragment`users JOIN team_users member ON member.uid = users.id AND member.team_id = ${teamId}`;
  const where = userListScopeCondition(users);
  const rows = await db.any(sql.type(userRow)`
    SELECT ${USER_COLUMNS} FROM ${from} WHERE ${where}
    ORDER BY users.full_name, users.lower_name, users.id ${paging(window)}
  `);
  if (users.kind === 'all') return { rows, total: await countTeamMembers(db, teamId) };
  const { count } = await db.one(sql.type(countRow)`SELECT count(*)::int AS count FROM ${from} WHERE ${where}`);
  return { rows, total: count };
}

const reachRow = z.object({ max_mode: z.number(), creates_repos: z.boolean() });

/**
 * The highest access mode among `uid`'s teams in the organization (Gitea's `GetOrgUserMaxAuthorizeLevel`) and
 * whether one of them may create repositories (`CanCreateOrgRepo`).
 */
export async function teamReach(db: CommonQueryMethods, orgId: number, uid: number): Promise<{ maxMode: number; createsRepos: boolean }> {
  const row = await db.one(sql.type(reachRow)`
    SELECT coalesce(max(t.access_mode), 0)::int AS max_mode, coalesce(bool_or(t.can_create_org_repo), false) AS creates_repos
    FROM team_users tu JOIN teams t ON t.id = tu.team_id
    WHERE tu.org_id = ${orgId} AND tu.uid = ${uid}
  `);
  return { maxMode: row.max_mode, createsRepos: row.creates_repos };
}
