/**
 * What the organization and team handlers look up first: the organization or team a request names, the
 * viewer's standing in it (for the decisions of domain/org-access.ts), and the user a request names.
 */
import type { CommonQueryMethods } from '@cairn/db';
import type { Team, TeamGrant } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { OrgStanding, TeamStanding } from '../domain/org-access';
import { orgNotFound, teamNotFound } from '../domain/org-errors';
import { userNotFound } from '../domain/errors';
import { accessModeName, grantedUnits, teamAccessView } from '../domain/team-units';
import { ANONYMOUS, type Viewer } from '../domain/visibility-rules';
import { isTeamMember, orgStanding } from '../store/members';
import { findOrgById, findOrgByName, toOrganization, toOrganizationRecord, type OrgRow } from '../store/orgs';
import { findTeam, type TeamRecord } from '../store/teams';
import { findUserByName, type UserRow } from '../store/users';

export interface OrgInView {
  org: OrgRow;
  standing: OrgStanding;
}

/** The organization of that name with the viewer's standing; NOT_FOUND when there is none (visibility is the caller's decision). */
export async function loadOrg(db: CommonQueryMethods, viewer: Viewer, name: string): Promise<OrgInView> {
  const org = await findOrgByName(db, name);
  if (org === null) throw orgNotFound(0, name);
  return { org, standing: { visibility: org.visibility, ...(await orgStanding(db, org.id, viewer.id)) } };
}

export interface TeamInView {
  team: TeamRecord;
  org: OrgRow;
  standing: TeamStanding;
}

export async function loadTeam(db: CommonQueryMethods, viewer: Viewer, teamId: number): Promise<TeamInView> {
  const team = await findTeam(db, teamId);
  const org = team === null ? null : await findOrgById(db, team.orgId);
  if (team === null || org === null) throw teamNotFound(teamId);
  const standing: TeamStanding = {
    visibility: org.visibility,
    ...(await orgStanding(db, org.id, viewer.id)),
    isTeamMember: await isTeamMember(db, team.id, viewer.id),
  };
  return { team, org, standing };
}

/** The individual user of that name (organizations are never members); NOT_FOUND otherwise. */
export async function findIndividual(db: CommonQueryMethods, name: string): Promise<UserRow> {
  const user = await findUserByName(db, name);
  if (user === null || user.type !== 0) throw userNotFound(0, name);
  return user;
}

/** The team as the API shows it, with its organization as the viewer may see it. */
export function toTeam(team: TeamRecord, org: OrgRow, viewer: Viewer): Team {
  const view = teamAccessView(team.access);
  return {
    id: team.id,
    orgId: team.orgId,
    name: team.name,
    description: team.description,
    permission: view.permission,
    includesAllRepositories: team.includesAllRepositories,
    canCreateOrgRepo: team.canCreateOrgRepo,
    units: view.units,
    unitsMap: view.unitsMap,
    organization: toOrganization(org, viewer),
  };
}

/** The team with every field of its organization, for events. */
export function teamForEvent(team: TeamRecord, org: OrgRow): Team {
  return { ...toTeam(team, org, ANONYMOUS), organization: toOrganizationRecord(org) };
}

/** The team as it grants repository access (ListUserTeams): its own mode and its stored unit modes. */
export function toTeamGrant(team: TeamRecord): TeamGrant {
  return {
    teamId: team.id,
    orgId: team.orgId,
    name: team.name,
    permission: accessModeName(team.access.accessMode),
    includesAllRepositories: team.includesAllRepositories,
    canCreateOrgRepo: team.canCreateOrgRepo,
    unitsMap: grantedUnits(team.access),
  };
}
