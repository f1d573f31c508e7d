/**
 * CollaboratorService: a repository's collaborators and organization teams (Gitea's routers/api/v1/repo/collaborators.go
 * and teams.go), and a team's repositories. Users are named by name in requests and resolved through accounts.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { CollaboratorServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, type AsyncServiceOf } from '@cairn/rpc';
import { AccessMode, OWNER_ORG, accessModeName, canRead, toPermission, unitMode, viewerFromActor } from '../domain/access';
import { pageWindow } from '../domain/paging';
import { enqueueCollaboratorAdded, enqueueCollaboratorRemoved, enqueueRepoTeamChanged } from '../events/outbox';
import { deleteCollaboration, findCollaboration, listCollaborations, upsertCollaboration } from '../store/collaborations';
import { linkTeam, unlinkTeam } from '../store/team-repos';
import { accountByName, internalActor } from './accounts-lookup';
import type { ReposContext } from './context';
import { guard } from './guard';
import { listTeamRepositories } from './list-repositories';
import { loadRepoForViewer, permissionFor, requireAccess } from './repo-access';
import { assertMayChangeTeams, assertOrgRepo, reaches, repoTeams, teamNamed } from './repo-teams';

/** BatchGetUserPermissions answers this many users at most per call. */
const MAX_PERMISSION_USERS = 100;

const COLLABORATOR_MODES: Readonly<Record<string, AccessMode>> = { read: AccessMode.Read, write: AccessMode.Write, admin: AccessMode.Admin };

/** `read`, `write` (the default) or `admin`; INVALID_ARGUMENT (reason permission_invalid) for anything else. */
function collaboratorMode(permission: string): AccessMode {
  const mode = COLLABORATOR_MODES[permission === '' ? 'write' : permission.toLowerCase()];
  if (mode === undefined) throw CairnError.invalid(`invalid access mode: ${permission}`, { reason: 'permission_invalid' });
  return mode;
}

export function createCollaboratorService(context: ReposContext): AsyncServiceOf<typeof CollaboratorServiceService> {
  const { db } = context;

  /** The repository and the named team of a link or unlink, once the actor may change the repository's teams. */
  const teamChange = async (request: { actor?: Actor; repoId: number; team: string }) => {
    const viewer = viewerFromActor(request.actor);
    const { repo, permission } = await loadRepoForViewer(context, viewer, request.repoId);
    assertOrgRepo(repo);
    requireAccess(permission, { mode: 'admin', archived: 'allow' }, repo);
    await assertMayChangeTeams(context, repo, permission);
    const teams = await repoTeams(context, repo);
    const team = teamNamed(teams, repo.ownerId, request.team);
    const link = { orgId: repo.ownerId, teamId: team.id, repoId: repo.id };
    return { team, link, linked: reaches(teams, team), actorId: viewer.id };
  };

  return {
    listCollaborators: (request) =>
      guard(async () => {
        const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
        const collaborations = await listCollaborations(db.pool, repo.id);
        const { users } = await context.accounts.users.batchGetUsers({
          ids: collaborations.map((collaboration) => collaboration.userId),
          viewer: internalActor(repo.ownerId),
        });
        const names = new Map(users.map((user) => [user.id, user.login.toLowerCase()]));
        const sorted = collaborations
          .filter((collaboration) => names.has(collaboration.userId))
          .sort((a, b) => names.get(a.userId)!.localeCompare(names.get(b.userId)!));
        const window = pageWindow(request.page);
        const page = window === undefined ? sorted : sorted.slice(window.offset, window.offset + window.limit);
        return {
          collaborators: page.map((collaboration) => ({ userId: collaboration.userId, permission: accessModeName(collaboration.mode) })),
          total: sorted.length,
        };
      }),

    isCollaborator: (request) =>
      guard(async () => {
        const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
        const user = await accountByName(context, request.username, repo.ownerId);
        return { collaborator: (await findCollaboration(db.pool, repo.id, user.id)) !== undefined };
      }),

    addCollaborator: (request) =>
      guard(async () => {
        const viewer = viewerFromActor(request.actor);
        const { repo, permission } = await loadRepoForViewer(context, viewer, request.repoId);
        requireAccess(permission, { mode: 'admin', archived: 'allow' }, repo);
        const user = await accountByName(context, request.username, viewer.id);
        const mode = collaboratorMode(request.permission);
        if (user.type === OWNER_ORG) {
          throw CairnError.invalid('an organization cannot be a collaborator', { reason: 'collaborator_is_org' });
        }
        if (user.id === repo.ownerId) {
          throw CairnError.invalid('the owner of a repository cannot be its collaborator', { reason: 'collaborator_is_owner' });
        }
        if (!user.active) throw CairnError.invalid("collaborator's account is inactive", { reason: 'user_inactive' });
        await db.pool.transaction(async (tx) => {
          if ((await findCollaboration(tx, repo.id, user.id)) === mode) return;
          await upsertCollaboration(tx, repo.id, user.id, mode);
          await enqueueCollaboratorAdded(tx, { repoId: repo.id, userId: user.id, permission: accessModeName(mode) }, viewer.id);
        });
        return {};
      }),

    removeCollaborator: (request) =>
      guard(async () => {
        const viewer = viewerFromActor(request.actor);
        const { repo, permission } = await loadRepoForViewer(context, viewer, request.repoId);
        requireAccess(permission, { mode: 'admin', archived: 'allow' }, repo);
        const user = await accountByName(context, request.username, viewer.id);
        await db.pool.transaction(async (tx) => {
          if (!(await deleteCollaboration(tx, repo.id, user.id))) {
            throw CairnError.notFound(`${user.login} is not a collaborator`, { reason: 'collaborator_not_found' });
          }
          await enqueueCollaboratorRemoved(tx, { repoId: repo.id, userId: user.id }, viewer.id);
        });
        return {};
      }),

    getUserPermission: (request) =>
      guard(async () => {
        const viewer = viewerFromActor(request.viewer);
        const { repo, permission } = await loadRepoForViewer(context, viewer, request.repoId);
        const user = await accountByName(context, request.username, viewer.id);
        if (!viewer.isAdmin && permission.mode < AccessMode.Admin && user.id !== viewer.id) {
          throw CairnError.denied(
            'Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own',
            { reason: 'permission_query_denied' },
          );
        }
        const theirs = await permissionFor(context, { id: user.id, isAdmin: user.isAdmin, isRestricted: user.restricted }, repo);
        // Gitea reports the overall mode; a team member's access lives in units, so their best unit counts when higher.
        const best = Math.max(theirs.mode, ...repo.units.map((unit) => unitMode(theirs, unit))) as AccessMode;
        const mode = canRead(theirs) ? best : AccessMode.None;
        return { userId: user.id, permission: accessModeName(mode), roleName: accessModeName(mode) };
      }),

    batchGetUserPermissions: (request) =>
      guard(async () => {
        const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
        const ids = [...new Set(request.userIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
        if (ids.length > MAX_PERMISSION_USERS) throw CairnError.invalid(`at most ${MAX_PERMISSION_USERS} users`, { reason: 'too_many_users' });
        if (ids.length === 0) return { permissions: [] };
        const { users } = await context.accounts.users.batchGetUsers({ ids, viewer: internalActor(repo.ownerId) });
        const byId = new Map(users.map((user) => [user.id, user]));
        const permissions = [];
        for (const id of ids) {
          const user = byId.get(id);
          if (user === undefined) continue;
          // An organization acts in no repository itself (Gitea's CanBeAssigned refuses one).
          const permission =
            user.type === OWNER_ORG
              ? { accessMode: accessModeName(AccessMode.None), units: {} }
              : toPermission(await permissionFor(context, { id, isAdmin: user.isAdmin, isRestricted: user.restricted }, repo));
          permissions.push({ userId: id, permission });
        }
        return { permissions };
      }),

    listRepoTeams: (request) =>
      guard(async () => {
        const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
        assertOrgRepo(repo);
        const teams = await repoTeams(context, repo);
        return { teamIds: teams.reaching.map((team) => team.id) };
      }),

    getRepoTeam: (request) =>
      guard(async () => {
        const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
        assertOrgRepo(repo);
        const teams = await repoTeams(context, repo);
        const team = teamNamed(teams, repo.ownerId, request.team);
        if (!reaches(teams, team)) throw CairnError.notFound('not found', { reason: 'team_not_found' });
        return { teamId: team.id };
      }),

    addRepoTeam: (request) =>
      guard(async () => {
        const { team, link, linked, actorId } = await teamChange(request);
        if (linked) throw CairnError.invalid(`team '${team.name}' is already added to repo`, { reason: 'team_already_added' });
        await db.pool.transaction(async (tx) => {
          if (await linkTeam(tx, link)) await enqueueRepoTeamChanged(tx, 'added', link, actorId);
        });
        return {};
      }),

    removeRepoTeam: (request) =>
      guard(async () => {
        const { team, link, linked, actorId } = await teamChange(request);
        if (!linked) throw CairnError.invalid(`team '${team.name}' was not added to repo`, { reason: 'team_not_added' });
        await db.pool.transaction(async (tx) => {
          if (await unlinkTeam(tx, link.teamId, link.repoId)) await enqueueRepoTeamChanged(tx, 'removed', link, actorId);
        });
        return {};
      }),

    listTeamRepositories: (request) =>
      guard(() => listTeamRepositories(context, viewerFromActor(request.viewer), request.teamId, request.page, request.publicOnly)),
  };
}
