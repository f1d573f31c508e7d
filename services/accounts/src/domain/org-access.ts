/**
 * Who may do what with an organization and its teams: THE place for those decisions (Gitea's API middleware
 * `reqOrgOwnership`, `reqOrgMembership`, `reqTeamMembership`, `reqOrgVisible` and the member handlers of
 * routers/api/v1/org). Pure functions over the viewer and their standing in the organization; handlers load
 * the standing, ask here, and throw what the decision says.
 *
 * Cairn answers an organization the viewer may not see with NOT_FOUND before any other check, so an
 * invisible organization is never told apart from a missing one (Gitea answers some of these with 403).
 */
import { canSeeOrg, isSignedIn, userListScope, type UserListScope, type Viewer } from './visibility-rules';
import type { Visibility } from './visibility';
import { AccessMode } from './team-units';

/** The viewer's standing in one organization. */
export interface OrgStanding {
  visibility: Visibility;
  /** In any team of the organization. */
  isMember: boolean;
  /** In its Owners team. */
  isOwner: boolean;
}

/** The viewer's standing towards one team. */
export interface TeamStanding extends OrgStanding {
  isTeamMember: boolean;
}

export type Decision = { allowed: true } | { allowed: false; outcome: 'not_found' | 'denied'; message: string };

const ALLOW: Decision = { allowed: true };
const HIDDEN: Decision = { allowed: false, outcome: 'not_found', message: 'not found' };

function deny(message: string): Decision {
  return { allowed: false, outcome: 'denied', message };
}

export const MUST_BE_OWNER = 'Must be an organization owner';
export const MUST_BE_MEMBER = 'Must be an organization member';
export const MUST_BE_TEAM_MEMBER = 'Must be a team member';

/**
 * - `view`: see the organization, its public members, a user's permissions in it;
 * - `manage`: edit, rename, delete it, remove members, create teams (owners and site admins);
 * - `read_teams`: list and search its teams (members and site admins);
 * - `publicize_member` / `conceal_member`: change a membership's visibility — members their own, owners and
 *   site admins anyone's (`targetIsViewer` says whose).
 */
export type OrgAction = 'view' | 'manage' | 'read_teams' | 'publicize_member' | 'conceal_member';

export function decideOrgAction(viewer: Viewer, action: OrgAction, org: OrgStanding, targetIsViewer = false): Decision {
  if (!canSeeOrg(viewer, org, org.isMember)) return HIDDEN;
  const admin = isSignedIn(viewer) && viewer.isAdmin;
  switch (action) {
    case 'view':
      return ALLOW;
    case 'manage':
      return admin || org.isOwner ? ALLOW : deny(MUST_BE_OWNER);
    case 'read_teams':
      return admin || org.isMember ? ALLOW : deny(MUST_BE_MEMBER);
    case 'publicize_member':
    case 'conceal_member':
      if (!admin && !org.isMember) return deny(MUST_BE_MEMBER);
      if (targetIsViewer || admin || org.isOwner) return ALLOW;
      return deny(action === 'publicize_member' ? 'Cannot publicize another member' : 'Cannot conceal another member');
  }
}

/**
 * - `view`: see the team and its members (site admins, owners, the team's members) — also what the gateway
 *   asks before it reads or changes the team's repositories in the repos service (Gitea's `reqTeamMembership`);
 * - `manage`: edit or delete it, add or remove members (site admins and owners).
 *
 * A team of an organization the viewer may not see, or that they do not belong to, is NOT_FOUND; a member
 * of the organization is told what they lack.
 */
export type TeamAction = 'view' | 'manage';

export function decideTeamAction(viewer: Viewer, action: TeamAction, team: TeamStanding): Decision {
  if (!canSeeOrg(viewer, team, team.isMember)) return HIDDEN;
  const admin = isSignedIn(viewer) && viewer.isAdmin;
  if (admin || team.isOwner) return ALLOW;
  if (!team.isMember) return HIDDEN;
  if (action === 'manage') return deny(MUST_BE_OWNER);
  return team.isTeamMember ? ALLOW : deny(MUST_BE_TEAM_MEMBER);
}

/**
 * Which memberships a member list shows (Gitea's `FindOrgMembersOpts`): everything to members and site
 * admins, public memberships to everyone else; a restricted member sees their team mates and the public
 * memberships. `users` is who among those users the viewer may see: members see every fellow member, other
 * viewers only the users the user-list rule shows them; a public-only token (`publicUsersOnly`, Gitea's
 * `ctx.PublicOnly`) only public users, whoever asks.
 */
export interface MemberListScope {
  memberships: 'all' | 'public' | 'team_mates_and_public';
  users: UserListScope;
}

export function memberListScope(viewer: Viewer, org: OrgStanding, publicOnly: boolean, publicUsersOnly = false): MemberListScope {
  const admin = isSignedIn(viewer) && viewer.isAdmin;
  const users: UserListScope = publicUsersOnly ? { kind: 'public' } : admin || org.isMember ? { kind: 'all' } : userListScope(viewer);
  if (publicOnly || !(admin || org.isMember)) return { memberships: 'public', users };
  if (!admin && viewer.isRestricted) return { memberships: 'team_mates_and_public', users };
  return { memberships: 'all', users };
}

/** Who among a team's members its viewers see: all of them, or only public users through a public-only token. */
export function teamMemberUsers(publicUsersOnly: boolean): UserListScope {
  return publicUsersOnly ? { kind: 'public' } : { kind: 'all' };
}

/**
 * How `GET /orgs/{org}/members/{username}` may answer (Gitea's `IsMember`): members and site admins learn
 * the full membership; a signed-in non-member asking about themselves learns they are not a member; anyone
 * else is sent to the public membership check.
 */
export type MembershipQuestion = 'full' | 'not_member' | 'public_only';

export function membershipQuestion(viewer: Viewer, org: OrgStanding, targetIsViewer: boolean): MembershipQuestion {
  if (!isSignedIn(viewer)) return 'public_only';
  if (viewer.isAdmin || org.isMember) return 'full';
  return targetIsViewer ? 'not_member' : 'public_only';
}

/** Teams a search covers (Gitea's `SearchTeam`): every team for site admins, the viewer's own teams otherwise. */
export function teamSearchMemberId(viewer: Viewer): number {
  return viewer.isAdmin ? 0 : viewer.id;
}

/** Gitea's `User.CanCreateOrganization`. */
export function canCreateOrganization(user: { isAdmin: boolean; allowCreateOrganization: boolean }): boolean {
  return user.isAdmin || user.allowCreateOrganization;
}

/** Gitea's `OrganizationPermissions`, from the highest mode among the user's teams in the organization. */
export interface OrgPermissions {
  isOwner: boolean;
  isAdmin: boolean;
  canWrite: boolean;
  canRead: boolean;
  canCreateRepository: boolean;
}

export function orgPermissions(maxTeamMode: AccessMode, inTeamThatCreatesRepos: boolean): OrgPermissions {
  return {
    canRead: maxTeamMode > AccessMode.None,
    canWrite: maxTeamMode > AccessMode.Read,
    isAdmin: maxTeamMode > AccessMode.Write,
    isOwner: maxTeamMode > AccessMode.Admin,
    canCreateRepository: inTeamThatCreatesRepos,
  };
}
