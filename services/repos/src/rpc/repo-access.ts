/**
 * Loading a repository for a viewer and checking what they may do: the one path every handler takes (the decision
 * itself is domain/access.ts). A repository the viewer may not read is NOT_FOUND, as if it did not exist.
 */
import type { CommonQueryMethods } from '@cairn/db';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { CairnError } from '@cairn/rpc';
import {
  AccessMode,
  NO_RELATION,
  OWNER_ORG,
  canRead,
  decidePermission,
  isSignedIn,
  teamsReaching,
  unitMode,
  viewerFromActor,
  type RepoPermission,
  type TeamGrant,
  type Viewer,
  type ViewerRelation,
} from '../domain/access';
import { collaborationsOf, findCollaboration } from '../store/collaborations';
import { findRepository, type RepoRow } from '../store/repositories';
import { linkedTeamIds, teamLinks } from '../store/team-repos';
import type { ReposContext } from './context';
import { userTeams } from './viewer-teams';

export interface RepoForViewer {
  repo: RepoRow;
  permission: RepoPermission;
}

export function repoNotFound(): CairnError {
  return CairnError.notFound('not found', { reason: 'repo_not_found' });
}

/** Whether the decision needs nothing about the viewer beyond who they are. */
function decidedByIdentity(viewer: Viewer, repo: RepoRow): boolean {
  return !isSignedIn(viewer) || viewer.isAdmin || viewer.id === repo.ownerId;
}

/** The viewer's permission on one repository. */
export async function permissionFor(context: ReposContext, viewer: Viewer, repo: RepoRow, db: CommonQueryMethods = context.db.pool): Promise<RepoPermission> {
  if (decidedByIdentity(viewer, repo)) return decidePermission(viewer, repo, NO_RELATION);
  const collaboration = (await findCollaboration(db, repo.id, viewer.id)) ?? AccessMode.None;
  if (repo.ownerType !== OWNER_ORG) return decidePermission(viewer, repo, { ...NO_RELATION, collaboration });
  const teams = await userTeams(context, viewer.id, repo.ownerId);
  const reaching = teams.length === 0 ? [] : teamsReaching(teams, repo.ownerId, await linkedTeamIds(db, repo.id));
  return decidePermission(viewer, repo, { collaboration, orgMember: teams.length > 0, teams: reaching });
}

/**
 * The viewer's permission on each of `repos` with a fixed number of queries: their collaborations, and (for
 * organization repositories) their teams — `teams` when the caller already has them (ListUserTeams of every
 * organization), else asked once.
 */
export async function permissionsFor(
  context: ReposContext,
  viewer: Viewer,
  repos: readonly RepoRow[],
  teams?: readonly TeamGrant[],
): Promise<Map<number, RepoPermission>> {
  const permissions = new Map<number, RepoPermission>();
  const related = repos.filter((repo) => !decidedByIdentity(viewer, repo));
  for (const repo of repos) {
    if (decidedByIdentity(viewer, repo)) permissions.set(repo.id, decidePermission(viewer, repo, NO_RELATION));
  }
  if (related.length === 0) return permissions;
  const collaborations = await collaborationsOf(context.db.pool, viewer.id, related.map((repo) => repo.id));
  const orgRepos = related.filter((repo) => repo.ownerType === OWNER_ORG);
  const allTeams = orgRepos.length === 0 ? [] : (teams ?? (await userTeams(context, viewer.id, 0)));
  const links = await teamLinks(context.db.pool, allTeams.map((team) => team.teamId), orgRepos.map((repo) => repo.id));
  for (const repo of related) {
    const collaboration = collaborations.get(repo.id) ?? AccessMode.None;
    let relation: ViewerRelation = { ...NO_RELATION, collaboration };
    if (repo.ownerType === OWNER_ORG) {
      const orgTeams = allTeams.filter((team) => team.orgId === repo.ownerId);
      relation = { collaboration, orgMember: orgTeams.length > 0, teams: teamsReaching(orgTeams, repo.ownerId, links.get(repo.id) ?? new Set()) };
    }
    permissions.set(repo.id, decidePermission(viewer, repo, relation));
  }
  return permissions;
}

/** The repository and the viewer's permission on it; NOT_FOUND when there is none or the viewer may not read it. */
export async function loadRepoForViewer(
  context: ReposContext,
  viewer: Actor | Viewer | undefined,
  repoId: number,
  db: CommonQueryMethods = context.db.pool,
): Promise<RepoForViewer> {
  const who = toViewer(viewer);
  const repo = repoId > 0 ? await findRepository(db, repoId) : undefined;
  if (repo === undefined) throw repoNotFound();
  const permission = await permissionFor(context, who, repo, db);
  if (!canRead(permission)) throw repoNotFound();
  return { repo, permission };
}

function toViewer(viewer: Actor | Viewer | undefined): Viewer {
  if (viewer === undefined) return viewerFromActor(undefined);
  return 'userId' in viewer ? viewerFromActor(viewer) : viewer;
}

export type RequiredMode = 'read' | 'write' | 'admin' | 'owner';

export interface AccessRequirement {
  /** The unit the action is in (e.g. "repo.code"); NOT_FOUND when it is not enabled or not readable. */
  unit?: string;
  mode: RequiredMode;
  /**
   * What to do when the repository is archived: `refuse` (FAILED_PRECONDITION, reason repo_archived: HTTP 423) or
   * `allow`. Default: refuse for `write`, allow for `admin` and `owner` (settings, collaborators, deletion work on
   * archived repositories in Gitea; content writes do not).
   */
  archived?: 'refuse' | 'allow';
}

export const DENIED_MESSAGES: Readonly<Record<Exclude<RequiredMode, 'read'>, string>> = {
  write: 'user should have a permission to write to a repo',
  admin: 'user should be an owner or a collaborator with admin write of a repository',
  owner: 'user should be the owner of the repo',
};

export function repoArchived(repo: Pick<RepoRow, 'ownerName' | 'name'>): CairnError {
  return CairnError.precondition(`${repo.ownerName}/${repo.name} is archived`, { reason: 'repo_archived' });
}

/**
 * Checks that the permission allows `requirement` (Gitea's reqRepoReader / reqRepoWriter / reqAdmin / reqOwner):
 * NOT_FOUND when the unit (or the repository) is not readable, PERMISSION_DENIED with Gitea's message when the mode
 * falls short — a unit write also passes for repository admins — and FAILED_PRECONDITION `repo_archived` for a write
 * the archive refuses.
 */
export function requireAccess(permission: RepoPermission, requirement: AccessRequirement, repo: RepoRow): void {
  const { unit, mode } = requirement;
  if (!canRead(permission)) throw repoNotFound();
  // A unit that is not enabled has no mode at all.
  if (unit !== undefined && unitMode(permission, unit) < AccessMode.Read) throw repoNotFound();
  if (mode === 'write') {
    const writable = unit !== undefined ? unitMode(permission, unit) >= AccessMode.Write || permission.mode >= AccessMode.Admin : permission.mode >= AccessMode.Write;
    if (!writable) throw CairnError.denied(DENIED_MESSAGES.write);
  } else if (mode === 'admin' && permission.mode < AccessMode.Admin) {
    throw CairnError.denied(DENIED_MESSAGES.admin);
  } else if (mode === 'owner' && permission.mode < AccessMode.Owner) {
    throw CairnError.denied(DENIED_MESSAGES.owner);
  }
  const refuseArchived = requirement.archived === undefined ? mode === 'write' : requirement.archived === 'refuse';
  if (refuseArchived && repo.isArchived) throw repoArchived(repo);
}

/**
 * The repository, when `caller` is one of its admins (rule settings: branch and tag protections); `change` also
 * refuses archived repositories.
 */
export async function loadAdminRepo(context: ReposContext, caller: Actor | undefined, repoId: number, change: boolean): Promise<RepoRow> {
  const { repo, permission } = await loadRepoForViewer(context, caller, repoId);
  requireAccess(permission, { mode: 'admin', archived: change ? 'refuse' : 'allow' }, repo);
  return repo;
}
