/**
 * Which repositories a viewer may read, as a SQL condition: domain/access.ts's decision turned into a filter for
 * lists, searches and counts (keep the two in step). The viewer's teams come from accounts (ListUserTeams of every
 * organization), their collaborations and team links are rows of this schema.
 */
import { sql, type FragmentSqlToken, type IdentifierSqlToken } from '@cairn/db';
import { AccessMode, isSignedIn, type TeamGrant, type Viewer } from '../domain/access';
import type { ReposContext } from '../rpc/context';
import { userTeams } from '../rpc/viewer-teams';

export type AccessScope =
  /** Site admins read everything. */
  | { kind: 'all' }
  /** Anonymous callers: public repositories of public owners. */
  | { kind: 'anonymous' }
  | { kind: 'viewer'; viewerId: number; isRestricted: boolean; teams: readonly TeamGrant[] };

export function accessScope(viewer: Viewer, teams: readonly TeamGrant[]): AccessScope {
  if (!isSignedIn(viewer)) return { kind: 'anonymous' };
  if (viewer.isAdmin) return { kind: 'all' };
  return { kind: 'viewer', viewerId: viewer.id, isRestricted: viewer.isRestricted, teams };
}

/** The viewer's scope, asking accounts for their teams when it matters. */
export async function viewerScope(context: ReposContext, viewer: Viewer): Promise<AccessScope> {
  const teams = isSignedIn(viewer) && !viewer.isAdmin ? await userTeams(context, viewer.id, 0) : [];
  return accessScope(viewer, teams);
}

function column(table: string, name: string): IdentifierSqlToken {
  return sql.identifier([table, name]);
}

/** The unit keys a team grants read (or more) on. */
function readableUnits(team: TeamGrant): string[] {
  return Object.entries(team.unitModes)
    .filter(([, mode]) => mode >= AccessMode.Read)
    .map(([unit]) => unit);
}

/** Repositories a team gives its members access to (reach, and a readable unit the repository has enabled). */
function teamCondition(team: TeamGrant, table: string): FragmentSqlToken | undefined {
  const id = column(table, 'id');
  const reach =
    team.includesAllRepositories || team.mode >= AccessMode.Admin
      ? sql.fragment`${column(table, 'owner_id')} = ${team.orgId}`
      : sql.fragment`${id} IN (SELECT tr.repo_id FROM team_repos tr WHERE tr.team_id = ${team.teamId})`;
  if (team.mode >= AccessMode.Read) return reach;
  const units = readableUnits(team);
  if (units.length === 0) return undefined;
  return sql.fragment`(${reach} AND EXISTS (SELECT 1 FROM repo_units ru WHERE ru.repo_id = ${id} AND ru.unit_key = ANY(${sql.array(units, 'text')})))`;
}

/**
 * Repositories `userId` owns or was given: collaborations and the teams in `teams` (which must be that user's).
 * Used for the viewer's own scope and for Gitea's `uid` search filter.
 */
export function grantedCondition(userId: number, teams: readonly TeamGrant[], table = 'r'): FragmentSqlToken {
  const parts: FragmentSqlToken[] = [
    sql.fragment`${column(table, 'owner_id')} = ${userId}`,
    sql.fragment`${column(table, 'id')} IN (SELECT c.repo_id FROM collaborations c WHERE c.user_id = ${userId})`,
  ];
  for (const team of teams) {
    const condition = teamCondition(team, table);
    if (condition !== undefined) parts.push(condition);
  }
  return sql.fragment`(${sql.join(parts, sql.fragment` OR `)})`;
}

/**
 * Public repositories of public owners: what an anonymous caller reads, and all a public-only token may see of
 * what its user reads (Gitea's `ctx.PublicOnly`, routers/api/v1/user/repo.go; Cairn also leaves out owners that are
 * not public, since a public-only token sees public users and organizations only). domain/access.ts's
 * `isPublicObject` decides the same for one repository.
 */
export function publicCondition(table = 'r'): FragmentSqlToken {
  return sql.fragment`(NOT ${column(table, 'is_private')} AND ${column(table, 'owner_visibility')} = 'public')`;
}

/** The condition `table` (an alias of `repositories`) must meet to be readable in `scope`. */
export function readableCondition(scope: AccessScope, table = 'r'): FragmentSqlToken {
  const isPrivate = column(table, 'is_private');
  const ownerVisibility = column(table, 'owner_visibility');
  switch (scope.kind) {
    case 'all':
      return sql.fragment`TRUE`;
    case 'anonymous':
      return publicCondition(table);
    case 'viewer': {
      const granted = grantedCondition(scope.viewerId, scope.teams, table);
      // Restricted users get nothing implicitly; others read public repositories of owners they may see (private
      // owners: only organizations they are a member of, i.e. in a team of).
      if (scope.isRestricted) return granted;
      const memberOrgs = [...new Set(scope.teams.map((team) => team.orgId))];
      const ownerSeen =
        memberOrgs.length === 0
          ? sql.fragment`${ownerVisibility} <> 'private'`
          : sql.fragment`(${ownerVisibility} <> 'private' OR ${column(table, 'owner_id')} = ANY(${sql.array(memberOrgs, 'int8')}))`;
      return sql.fragment`(${granted} OR (NOT ${isPrivate} AND ${ownerSeen}))`;
    }
  }
}

/** The readable condition on `table` (default: the unaliased `repositories`) for `viewer`. */
export async function readableRepositories(context: ReposContext, viewer: Viewer, table = 'repositories'): Promise<FragmentSqlToken> {
  return readableCondition(await viewerScope(context, viewer), table);
}
