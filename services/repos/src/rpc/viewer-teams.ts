/** The viewer's organization teams, asked of accounts (`TeamService.ListUserTeams`), as the access decision reads them. */
import type { TeamGrant as TeamGrantMessage } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { accessModeOf, type AccessMode, type TeamGrant } from '../domain/access';
import type { ReposContext } from './context';

export function toTeamGrant(team: TeamGrantMessage): TeamGrant {
  const unitModes: Record<string, AccessMode> = {};
  for (const [unit, mode] of Object.entries(team.unitsMap)) unitModes[unit] = accessModeOf(mode);
  return {
    teamId: team.teamId,
    orgId: team.orgId,
    mode: accessModeOf(team.permission),
    includesAllRepositories: team.includesAllRepositories,
    canCreateOrgRepo: team.canCreateOrgRepo,
    unitModes,
  };
}

/** The user's teams in the organization, or in every organization when `orgId` is 0; none for anonymous callers. */
export async function userTeams(context: ReposContext, userId: number, orgId: number): Promise<TeamGrant[]> {
  if (userId <= 0) return [];
  const { teams } = await context.accounts.teams.listUserTeams({ userId, orgId });
  return teams.map(toTeamGrant);
}
