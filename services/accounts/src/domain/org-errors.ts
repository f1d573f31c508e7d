/**
 * The errors of organizations and teams, with Gitea's texts (models/organization/org.go, team.go) and a
 * reason per case for the gateway to pick Gitea's status.
 */
import { CairnError } from '@cairn/rpc';
import type { Decision } from './org-access';

export const OrgReason = {
  orgNotFound: 'org_not_found',
  teamNotFound: 'team_not_found',
  teamExists: 'team_exists',
  teamUnitsEmpty: 'team_units_empty',
  lastOwner: 'last_org_owner',
  ownersTeamUndeletable: 'owners_team_undeletable',
  createOrgDenied: 'create_org_denied',
  denied: 'org_denied',
  teamMemberNotFound: 'team_member_not_found',
  userHasOrgs: 'user_has_orgs',
} as const;

export function orgNotFound(id: number, name: string): CairnError {
  return CairnError.notFound(`org does not exist [id: ${id}, name: ${name}]`, { reason: OrgReason.orgNotFound });
}

export function teamNotFound(teamId: number): CairnError {
  return CairnError.notFound(`team does not exist [org_id 0, team_id ${teamId}, name: ]`, { reason: OrgReason.teamNotFound });
}

export function teamExists(orgId: number, lowerName: string): CairnError {
  return CairnError.exists(`team already exists [org_id: ${orgId}, name: ${lowerName}]`, { reason: OrgReason.teamExists });
}

/** Gitea answers a non-admin team without units with this text (and a 500). */
export function teamUnitsEmpty(): CairnError {
  return CairnError.invalid('units permission should not be empty', { reason: OrgReason.teamUnitsEmpty });
}

export function lastOwner(uid: number): CairnError {
  return CairnError.precondition(`user is the last member of owner team [uid: ${uid}]`, { reason: OrgReason.lastOwner });
}

/** Gitea's ErrUserHasOrgs: a member of organizations is deleted only with `purge`. */
export function userHasOrgs(uid: number): CairnError {
  return CairnError.precondition(`user still has membership of organizations [uid: ${uid}]`, { reason: OrgReason.userHasOrgs });
}

export function ownersTeamUndeletable(): CairnError {
  return CairnError.precondition('the Owners team cannot be deleted', { reason: OrgReason.ownersTeamUndeletable });
}

export function createOrgDenied(): CairnError {
  return CairnError.denied('user is not allowed to create organizations', { reason: OrgReason.createOrgDenied });
}

/** The user named is not in the team (Gitea's bare not-found). */
export function teamMemberNotFound(): CairnError {
  return CairnError.notFound('not found', { reason: OrgReason.teamMemberNotFound });
}

/** Throws what a refused decision says: `notFound()` for what the viewer may not see, else PERMISSION_DENIED. */
export function enforce(decision: Decision, notFound: () => CairnError): void {
  if (decision.allowed) return;
  if (decision.outcome === 'not_found') throw notFound();
  throw CairnError.denied(decision.message, { reason: OrgReason.denied });
}
