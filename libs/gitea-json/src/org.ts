/**
 * accounts' Organization, Team and permissions → Gitea's JSON (services/convert/convert.go `ToOrganization`,
 * `ToTeams`). accounts has shaped them for the caller already (no e-mail for anonymous callers).
 */
import type { GetOrgPermissionsResponse, Organization, Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { avatarUrl } from './user';

/** Gitea's `api.Organization`, keys in its order. */
export interface ApiOrganization {
  id: number;
  name: string;
  full_name: string;
  email: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repo_admin_change_team_access: boolean;
  /** Deprecated duplicate of `name`. */
  username: string;
}

export function toApiOrganization(org: Organization, rootUrl: string): ApiOrganization {
  return {
    id: org.id,
    name: org.name,
    full_name: org.fullName,
    email: org.email,
    avatar_url: avatarUrl(rootUrl, org),
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: org.visibility,
    repo_admin_change_team_access: org.repoAdminChangeTeamAccess,
    username: org.name,
  };
}

/** Gitea's `api.Team`, keys in its order. */
export interface ApiTeam {
  id: number;
  name: string;
  description: string;
  organization: ApiOrganization | null;
  includes_all_repositories: boolean;
  permission: string;
  units: string[];
  units_map: Record<string, string>;
  can_create_org_repo: boolean;
}

/**
 * The team with its organization. (Gitea leaves `organization` null in team lists and in create/edit answers;
 * Cairn always fills it: the same object, and what Gitea's own description promises.)
 */
export function toApiTeam(team: Team, rootUrl: string): ApiTeam {
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: team.organization === undefined ? null : toApiOrganization(team.organization, rootUrl),
    includes_all_repositories: team.includesAllRepositories,
    permission: team.permission,
    units: team.units,
    // Go writes map keys sorted.
    units_map: Object.fromEntries(Object.entries(team.unitsMap).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    can_create_org_repo: team.canCreateOrgRepo,
  };
}

/** Gitea's `api.OrganizationPermissions`, keys in its order. */
export interface ApiOrganizationPermissions {
  is_owner: boolean;
  is_admin: boolean;
  can_write: boolean;
  can_read: boolean;
  can_create_repository: boolean;
}

export function toApiOrganizationPermissions(permissions: GetOrgPermissionsResponse): ApiOrganizationPermissions {
  return {
    is_owner: permissions.isOwner,
    is_admin: permissions.isAdmin,
    can_write: permissions.canWrite,
    can_read: permissions.canRead,
    can_create_repository: permissions.canCreateRepository,
  };
}
