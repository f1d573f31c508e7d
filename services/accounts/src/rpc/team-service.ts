/**
 * TeamService: the teams of organizations (Gitea's routers/api/v1/org/team.go over services/org/team.go).
 * Access rules come from domain/org-access.ts, team access from domain/team-units.ts. Which repositories a team
 * is linked to is the repos service's; `ListUserTeams` tells it what each team of a user grants.
 */
import type { CommonQueryMethods, DatabaseTransactionConnection } from '@cairn/db';
import type { AsyncServiceOf } from '@cairn/rpc';
import { CairnError } from '@cairn/rpc';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { nameReserved } from '../domain/errors';
import { decideOrgAction, decideTeamAction, teamMemberUsers, teamSearchMemberId, type TeamAction } from '../domain/org-access';
import {
  enforce,
  orgNotFound,
  ownersTeamUndeletable,
  teamExists,
  teamMemberNotFound,
  teamNotFound,
  teamUnitsEmpty,
} from '../domain/org-errors';
import { accessAfterEdit, accessForNewTeam, type TeamAccess } from '../domain/team-units';
import { containsPattern, pageWindow } from '../domain/user-search';
import { userForViewer } from '../domain/user-view';
import { viewerFromActor, type Viewer } from '../domain/visibility-rules';
import { enqueueTeamCreated, enqueueTeamDeleted, enqueueTeamUpdated } from '../events/org-outbox';
import { isTeamMember, listTeamMembers, teamMemberIds } from '../store/members';
import { findOrgsByIds, lockOrg } from '../store/orgs';
import { deleteTeam, findTeams, insertTeam, isOwnersTeam, listUserTeams, searchTeams, teamNameTaken, updateTeam, type TeamChanges } from '../store/teams';
import { toUser } from '../store/users';
import type { AccountsContext } from './context';
import { guard } from './guard';
import { dropTeamless, joinTeam, leaveTeam } from './membership-changes';
import { findIndividual, loadOrg, loadTeam, teamForEvent, toTeam, toTeamGrant, type TeamInView } from './org-lookup';

/** Gitea's `IsUsableTeamName`: `new` would clash with the team creation page. */
function assertUsableTeamName(name: string): void {
  if (name.toLowerCase() === 'new') throw nameReserved(name);
}

export function createTeamService({ db, settings }: AccountsContext): AsyncServiceOf<typeof TeamServiceService> {
  const { noReplyAddress } = settings;

  /** The team, when the viewer may do `action` with it. */
  async function teamFor(database: CommonQueryMethods, viewer: Viewer, teamId: number, action: TeamAction): Promise<TeamInView> {
    const found = await loadTeam(database, viewer, teamId);
    enforce(decideTeamAction(viewer, action, found.standing), () => teamNotFound(teamId));
    return found;
  }

  /** The team, locked through its organization's row for a change the viewer may make. */
  async function lockTeamFor(tx: DatabaseTransactionConnection, viewer: Viewer, teamId: number, action: TeamAction): Promise<TeamInView> {
    const found = await loadTeam(tx, viewer, teamId);
    await lockOrg(tx, found.org.id);
    // Read again under the lock: a concurrent change may have moved the team or its members.
    return teamFor(tx, viewer, teamId, action);
  }

  return {
    async createTeam(request) {
      const viewer = viewerFromActor(request.actor);
      const { name } = request;
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { org, standing } = await loadOrg(tx, viewer, request.org);
          enforce(decideOrgAction(viewer, 'manage', standing), () => orgNotFound(0, request.org));
          await lockOrg(tx, org.id);
          const access = accessForNewTeam({ permission: request.permission, units: request.units, unitsMap: request.unitsMap });
          if (access === undefined) throw teamUnitsEmpty();
          if (name.trim() === '') throw CairnError.invalid('empty team name');
          assertUsableTeamName(name);
          if (await teamNameTaken(tx, org.id, name)) throw teamExists(org.id, name.toLowerCase());
          const team = await insertTeam(tx, {
            orgId: org.id,
            name,
            description: request.description,
            access,
            includesAllRepositories: request.includesAllRepositories,
            canCreateOrgRepo: request.canCreateOrgRepo,
          });
          await enqueueTeamCreated(tx, teamForEvent(team, org), viewer.id);
          return { team: toTeam(team, org, viewer) };
        }),
      );
    },

    async getTeam(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { team, org } = await teamFor(db.pool, viewer, request.id, 'view');
        return { team: toTeam(team, org, viewer) };
      });
    },

    async listTeams(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { org, standing } = await loadOrg(db.pool, viewer, request.org);
        enforce(decideOrgAction(viewer, 'read_teams', standing), () => orgNotFound(0, request.org));
        const { teams, total } = await searchTeams(db.pool, { orgId: org.id, includeDescription: false, memberId: 0 }, pageWindow(request.page));
        return { teams: teams.map((team) => toTeam(team, org, viewer)), total };
      });
    },

    async searchTeams(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { org, standing } = await loadOrg(db.pool, viewer, request.org);
        enforce(decideOrgAction(viewer, 'read_teams', standing), () => orgNotFound(0, request.org));
        const { teams, total } = await searchTeams(
          db.pool,
          {
            orgId: org.id,
            pattern: containsPattern(request.keyword.trim()),
            includeDescription: request.includeDescription,
            memberId: teamSearchMemberId(viewer),
          },
          pageWindow(request.page),
        );
        return { teams: teams.map((team) => toTeam(team, org, viewer)), total };
      });
    },

    async updateTeam(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { team, org } = await lockTeamFor(tx, viewer, request.id, 'manage');
          const owners = isOwnersTeam(team);
          const changes: TeamChanges = {};
          // The Owners team keeps its name, as in Gitea's web settings.
          if (request.name !== undefined && request.name !== '' && !owners && request.name !== team.name) {
            assertUsableTeamName(request.name);
            if (await teamNameTaken(tx, org.id, request.name, team.id)) throw teamExists(org.id, request.name.toLowerCase());
            changes.name = request.name;
          }
          if (request.description !== undefined && request.description !== team.description) changes.description = request.description;
          if (request.canCreateOrgRepo !== undefined) {
            const canCreate = owners || request.canCreateOrgRepo;
            if (canCreate !== team.canCreateOrgRepo) changes.canCreateOrgRepo = canCreate;
          }
          const { modeGiven, ...access } = accessAfterEdit(
            team.access,
            { permission: request.permission, units: request.units, unitsMap: request.unitsMap },
            owners,
          );
          if (JSON.stringify(access) !== JSON.stringify(team.access)) changes.access = access;
          // Gitea applies includes_all_repositories only together with a permission.
          if (modeGiven && request.includesAllRepositories !== undefined && request.includesAllRepositories !== team.includesAllRepositories) {
            changes.includesAllRepositories = request.includesAllRepositories;
          }
          const changed = changedFields(team.access, changes);
          if (changed.length === 0) return { team: toTeam(team, org, viewer) };
          const updated = await updateTeam(tx, team.id, changes);
          await enqueueTeamUpdated(tx, teamForEvent(updated, org), changed, viewer.id);
          return { team: toTeam(updated, org, viewer) };
        }),
      );
    },

    async deleteTeam(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { team, org } = await lockTeamFor(tx, viewer, request.id, 'manage');
          if (isOwnersTeam(team)) throw ownersTeamUndeletable();
          const members = await teamMemberIds(tx, team.id);
          await deleteTeam(tx, team.id);
          await enqueueTeamDeleted(tx, { teamId: team.id, orgId: org.id, name: team.name }, viewer.id);
          await dropTeamless(tx, org.id, members, viewer.id);
          return {};
        }),
      );
    },

    async listTeamMembers(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { team } = await teamFor(db.pool, viewer, request.teamId, 'view');
        const users = teamMemberUsers(request.publicUsersOnly === true);
        const { rows, total } = await listTeamMembers(db.pool, team.id, pageWindow(request.page), users);
        return { users: rows.map((row) => userForViewer(toUser(row), viewer, noReplyAddress)), total };
      });
    },

    async getTeamMember(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { team } = await teamFor(db.pool, viewer, request.teamId, 'view');
        const user = await findIndividual(db.pool, request.username);
        if (!(await isTeamMember(db.pool, team.id, user.id))) throw teamMemberNotFound();
        return { user: userForViewer(toUser(user), viewer, noReplyAddress) };
      });
    },

    async addTeamMember(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { team } = await lockTeamFor(tx, viewer, request.teamId, 'manage');
          const user = await findIndividual(tx, request.username);
          await joinTeam(tx, team, user.id, settings.defaultOrgMemberVisible, viewer.id);
          return {};
        }),
      );
    },

    async removeTeamMember(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { team } = await lockTeamFor(tx, viewer, request.teamId, 'manage');
          const user = await findIndividual(tx, request.username);
          await leaveTeam(tx, team, user.id, viewer.id);
          return {};
        }),
      );
    },

    async listUserTeams(request) {
      return guard(async () => {
        const teams = await listUserTeams(db.pool, request.userId, request.orgId);
        return { teams: teams.map(toTeamGrant) };
      });
    },

    async batchGetTeams(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const teams = await findTeams(db.pool, [...new Set(request.ids)]);
        const orgs = new Map((await findOrgsByIds(db.pool, [...new Set(teams.map((team) => team.orgId))])).map((org) => [org.id, org]));
        return {
          teams: teams.flatMap((team) => {
            const org = orgs.get(team.orgId);
            return org === undefined ? [] : [toTeam(team, org, viewer)];
          }),
        };
      });
    },
  };
}

/** The proto names of the team fields a change touches, for `cairn.team.updated`. */
function changedFields(before: TeamAccess, changes: TeamChanges): string[] {
  const changed: string[] = [];
  if (changes.name !== undefined) changed.push('name');
  if (changes.description !== undefined) changed.push('description');
  if (changes.access !== undefined) {
    if (changes.access.accessMode !== before.accessMode) changed.push('permission');
    if (JSON.stringify(changes.access.units) !== JSON.stringify(before.units)) changed.push('units');
  }
  if (changes.includesAllRepositories !== undefined) changed.push('includes_all_repositories');
  if (changes.canCreateOrgRepo !== undefined) changed.push('can_create_org_repo');
  return changed;
}
