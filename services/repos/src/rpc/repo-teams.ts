/**
 * A repository's organization teams (Gitea's routers/api/v1/repo/teams.go): the teams linked to it plus those that
 * reach every repository of the organization (the Owners team, teams including all repositories). Teams themselves
 * are accounts'; they are read as a site admin, since the caller's right to see them is the repository's.
 */
import type { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { CairnError } from '@cairn/rpc';
import { AccessMode, OWNER_ORG, accessModeOf, type RepoPermission } from '../domain/access';
import type { RepoRow } from '../store/repositories';
import { linkedTeamIds } from '../store/team-repos';
import { internalActor } from './accounts-lookup';
import type { ReposContext } from './context';

export function notOrgRepo(): CairnError {
  return CairnError.precondition('repo is not owned by an organization', { reason: 'not_org_repo' });
}

export function assertOrgRepo(repo: RepoRow): void {
  if (repo.ownerType !== OWNER_ORG) throw notOrgRepo();
}

function reachesAll(team: Team): boolean {
  return team.includesAllRepositories || accessModeOf(team.permission) >= AccessMode.Owner;
}

export interface RepoTeams {
  /** Every team of the organization. */
  all: Team[];
  /** Those with access to the repository: the Owners team first, then by name (Gitea's order). */
  reaching: Team[];
  linked: Set<number>;
}

export async function repoTeams(context: ReposContext, repo: RepoRow): Promise<RepoTeams> {
  const { teams } = await context.accounts.teams.listTeams({ viewer: internalActor(repo.ownerId), org: repo.ownerName, page: { page: 1, limit: 0 } });
  const linked = await linkedTeamIds(context.db.pool, repo.id);
  const reaching = teams
    .filter((team) => reachesAll(team) || linked.has(team.id))
    .sort((a, b) => {
      const owners = Number(accessModeOf(b.permission) >= AccessMode.Owner) - Number(accessModeOf(a.permission) >= AccessMode.Owner);
      return owners || a.name.toLowerCase().localeCompare(b.name.toLowerCase());
    });
  return { all: teams, reaching, linked };
}

/** The organization's team of that name (case-insensitive); NOT_FOUND (reason team_not_found) when none. */
export function teamNamed(teams: RepoTeams, orgId: number, name: string): Team {
  const team = teams.all.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (team === undefined) throw CairnError.notFound(`team does not exist [org_id ${orgId}, team_id 0, name: ${name}]`, { reason: 'team_not_found' });
  return team;
}

export function reaches(teams: RepoTeams, team: Team): boolean {
  return teams.reaching.some((candidate) => candidate.id === team.id);
}

/**
 * Gitea's rule for changing a repository's teams: repository admins when the organization lets them
 * (`repo_admin_change_team_access`), else only its owners.
 */
export async function assertMayChangeTeams(context: ReposContext, repo: RepoRow, permission: RepoPermission): Promise<void> {
  if (permission.mode >= AccessMode.Owner) return;
  const { org } = await context.accounts.orgs.getOrg({ viewer: internalActor(repo.ownerId), id: repo.ownerId });
  if (org?.repoAdminChangeTeamAccess !== true) throw CairnError.denied('user is nor repo admin nor owner', { reason: 'team_change_denied' });
}
