/**
 * THE repository access decision (Gitea 1.26's models/perm/access/repo_permission.go `GetUserRepoPermission`,
 * `accessLevel` and organization.HasOrgOrUserVisible). Pure: the caller gathers the facts (the viewer, the
 * repository, the viewer's collaboration and teams) and gets the permission. List queries apply the same rules in
 * SQL (store/access-scope.ts); a change here must be mirrored there.
 *
 * - site admins and the owner (a user) have `owner`;
 * - members of an organization team with admin access or more (the Owners team) have `owner`;
 * - other team members have each unit at their teams' best mode for it, when the team includes all repositories or
 *   is linked to the repository;
 * - collaborators have their mode on every unit, even when they could not otherwise see the owner;
 * - a public repository of an owner the viewer may see is readable by anonymous callers (public owners only) and
 *   by signed-in users that are not restricted; restricted users get no implicit read at all.
 */
import type { Permission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { ANONYMOUS, type Viewer, isSignedIn, viewerFromActor } from '@cairn/rpc';

export enum AccessMode {
  None = 0,
  Read = 1,
  Write = 2,
  Admin = 3,
  Owner = 4,
}

const MODE_NAMES: readonly string[] = ['none', 'read', 'write', 'admin', 'owner'];

export function accessModeName(mode: AccessMode): string {
  return MODE_NAMES[mode];
}

/** `none|read|write|admin|owner` → mode; anything else is `none`. */
export function accessModeOf(name: string): AccessMode {
  const index = MODE_NAMES.indexOf(name);
  return index < 0 ? AccessMode.None : (index as AccessMode);
}

export type Visibility = 'public' | 'limited' | 'private';

/** Who asks (@cairn/rpc's viewer of an RPC's `Actor`). */
export { ANONYMOUS, type Viewer, isSignedIn, viewerFromActor };

export const OWNER_USER = 0;
export const OWNER_ORG = 1;

/** What the decision needs to know about a repository. */
export interface RepoAccessFacts {
  ownerId: number;
  /** OWNER_USER or OWNER_ORG. */
  ownerType: number;
  ownerVisibility: Visibility;
  isPrivate: boolean;
  /** Enabled unit keys. */
  units: readonly string[];
}

/** One of the viewer's teams, as it grants repository access (accounts' TeamGrant). */
export interface TeamGrant {
  teamId: number;
  orgId: number;
  mode: AccessMode;
  includesAllRepositories: boolean;
  canCreateOrgRepo: boolean;
  /** Unit key → mode. */
  unitModes: Readonly<Record<string, AccessMode>>;
}

/** What the decision needs to know about the viewer's relation to the repository. */
export interface ViewerRelation {
  /** The viewer's collaboration mode; None when not a collaborator. */
  collaboration: AccessMode;
  /** The viewer is in some team of the owning organization (Gitea's org membership). */
  orgMember: boolean;
  /** The viewer's teams of the owning organization that reach this repository (see `teamsReaching`). */
  teams: readonly TeamGrant[];
}

export const NO_RELATION: ViewerRelation = Object.freeze({ collaboration: AccessMode.None, orgMember: false, teams: Object.freeze([]) });

/**
 * The viewer's teams (any organization) that reach a repository of `ownerId`: the organization's teams with admin
 * access or more (the Owners team), those including all repositories, and those linked to the repository.
 */
export function teamsReaching(teams: readonly TeamGrant[], ownerId: number, linkedTeamIds: ReadonlySet<number>): TeamGrant[] {
  return teams.filter(
    (team) => team.orgId === ownerId && (team.mode >= AccessMode.Admin || team.includesAllRepositories || linkedTeamIds.has(team.teamId)),
  );
}

/** Gitea's `HasOrgOrUserVisible`: may the viewer see the repository's owner? */
export function ownerVisible(viewer: Viewer, repo: RepoAccessFacts, orgMember: boolean): boolean {
  if (!isSignedIn(viewer)) return repo.ownerVisibility === 'public';
  if (viewer.isAdmin || viewer.id === repo.ownerId) return true;
  if (repo.ownerVisibility === 'public') return true;
  if (repo.ownerVisibility === 'private' || viewer.isRestricted) return orgMember;
  return true;
}

/**
 * A public repository of a public owner: the only kind a public-only token may see (Gitea's `ctx.PublicOnly`);
 * store/access-scope.ts's `publicCondition` is its SQL form (keep the two in step).
 */
export function isPublicObject(repo: Pick<RepoAccessFacts, 'isPrivate' | 'ownerVisibility'>): boolean {
  return !repo.isPrivate && repo.ownerVisibility === 'public';
}

/** A viewer's permission: the overall mode (Gitea's `AccessMode`) and the effective mode of every enabled unit. */
export interface RepoPermission {
  mode: AccessMode;
  units: Readonly<Record<string, AccessMode>>;
}

function uniform(repo: RepoAccessFacts, mode: AccessMode): RepoPermission {
  return { mode, units: Object.fromEntries(repo.units.map((unit) => [unit, mode])) };
}

export function decidePermission(viewer: Viewer, repo: RepoAccessFacts, relation: ViewerRelation): RepoPermission {
  const signedIn = isSignedIn(viewer);
  if (!signedIn && repo.isPrivate) return uniform(repo, AccessMode.None);
  const isCollaborator = relation.collaboration > AccessMode.None;
  if (!ownerVisible(viewer, repo, relation.orgMember) && !isCollaborator) return uniform(repo, AccessMode.None);
  if (!signedIn) return uniform(repo, AccessMode.Read);
  if (viewer.isAdmin || viewer.id === repo.ownerId) return uniform(repo, AccessMode.Owner);

  // Gitea's `accessLevel`: implicit read, then the access table (collaborations and team modes).
  const implicit = !repo.isPrivate && !viewer.isRestricted ? AccessMode.Read : AccessMode.None;
  const teams = repo.ownerType === OWNER_ORG ? relation.teams : [];
  const mode = Math.max(implicit, relation.collaboration, ...teams.map((team) => team.mode)) as AccessMode;
  if (repo.ownerType !== OWNER_ORG || teams.length === 0) return uniform(repo, mode);
  if (teams.some((team) => team.mode >= AccessMode.Admin)) return uniform(repo, AccessMode.Owner);

  // Teams grant per unit; a collaborator keeps their mode on every unit.
  const units: Record<string, AccessMode> = {};
  for (const unit of repo.units) {
    let unitMode = Math.max(isCollaborator ? mode : AccessMode.None, implicit) as AccessMode;
    for (const team of teams) unitMode = Math.max(unitMode, team.unitModes[unit] ?? AccessMode.None) as AccessMode;
    units[unit] = mode >= AccessMode.Admin ? mode : unitMode;
  }
  return { mode, units };
}

/** Gitea's `HasAnyUnitAccess`: what makes a repository readable at all (else NOT_FOUND). */
export function canRead(permission: RepoPermission): boolean {
  return permission.mode >= AccessMode.Read || Object.values(permission.units).some((mode) => mode >= AccessMode.Read);
}

/** The mode the viewer has on a unit: None when the unit is not enabled. */
export function unitMode(permission: RepoPermission, unit: string): AccessMode {
  return permission.units[unit] ?? AccessMode.None;
}

export function toPermission(permission: RepoPermission): Permission {
  return {
    accessMode: accessModeName(permission.mode),
    units: Object.fromEntries(Object.entries(permission.units).map(([unit, mode]) => [unit, accessModeName(mode)])),
  };
}
