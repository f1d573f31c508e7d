/**
 * accounts in memory for the repository service tests: users and organizations with their flags, visibility and
 * former names, teams with members, units and repository-creation rights — everything RepoService and
 * CollaboratorService ask (GetUser, BatchGetUsers, ResolveName, ListUserTeams, ListTeams, GetTeam, BatchGetTeams,
 * GetOrg). Visibility follows accounts' rules closely enough for the access matrix: ResolveName hides what the
 * viewer may not see; the other lookups repos makes as a site admin.
 */
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Organization, Team, TeamGrant } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { CairnError } from '@cairn/rpc';
import type { OrgsClient, TeamsClient, UsersClient } from '../../src/rpc/context';

type Visibility = 'public' | 'limited' | 'private';

interface Account {
  id: number;
  login: string;
  isOrg: boolean;
  isAdmin: boolean;
  restricted: boolean;
  active: boolean;
  visibility: Visibility;
  maxRepoCreation: number;
  email: string;
  fullName: string;
  keepEmailPrivate: boolean;
  repoAdminChangeTeamAccess: boolean;
}

interface MemoryTeam {
  id: number;
  orgId: number;
  name: string;
  permission: string;
  includesAllRepositories: boolean;
  canCreateOrgRepo: boolean;
  unitsMap: Record<string, string>;
  members: Set<number>;
}

export interface UserOptions {
  isAdmin?: boolean;
  restricted?: boolean;
  active?: boolean;
  visibility?: Visibility;
  maxRepoCreation?: number;
  fullName?: string;
  keepEmailPrivate?: boolean;
}

export interface OrgOptions {
  visibility?: Visibility;
  repoAdminChangeTeamAccess?: boolean;
  maxRepoCreation?: number;
  /** Put in the Owners team. */
  owners?: number[];
}

export interface TeamOptions {
  /** none|read|write|admin|owner; default none (access through units). */
  permission?: string;
  /** Unit key → mode; default write on code and pulls. */
  units?: Record<string, string>;
  includesAllRepositories?: boolean;
  canCreateOrgRepo?: boolean;
  members?: number[];
}

export interface AccountsMemory {
  users: UsersClient;
  teams: TeamsClient;
  orgs: OrgsClient;
  addUser(login: string, options?: UserOptions): number;
  /** An organization with its Owners team. */
  addOrg(name: string, options?: OrgOptions): number;
  addTeam(orgId: number, name: string, options?: TeamOptions): number;
  addMember(teamId: number, userId: number): void;
  ownersTeam(orgId: number): number;
  /** Renames an account; the old name keeps resolving to it (a redirect). */
  rename(id: number, login: string): void;
  setVisibility(id: number, visibility: Visibility): void;
  /** The Actor a signed-in user calls with. */
  actor(userId: number): Actor;
}

function notFound(what: string): CairnError {
  return CairnError.notFound(`${what} does not exist`, { reason: 'not_found' });
}

/** Accounts' one-line visibility rule (HasOrgOrUserVisible / IsUserVisibleToViewer), members meaning team members. */
function visibleTo(account: Account, viewer: Actor | undefined, isMember: boolean): boolean {
  if (viewer === undefined || viewer.userId <= 0) return account.visibility === 'public';
  if (viewer.isAdmin || viewer.userId === account.id || account.visibility === 'public') return true;
  if (account.visibility === 'private' || viewer.isRestricted) return isMember;
  return true;
}

export function accountsMemory(): AccountsMemory {
  let nextId = 1;
  let nextTeamId = 1001;
  const accounts = new Map<number, Account>();
  const formerNames = new Map<string, number>();
  const teams: MemoryTeam[] = [];

  const byName = (name: string): Account | undefined => [...accounts.values()].find((account) => account.login.toLowerCase() === name.toLowerCase());
  const orgTeamsOf = (userId: number, orgId: number): MemoryTeam[] => teams.filter((team) => team.orgId === orgId && team.members.has(userId));

  const toUser = (account: Account): User =>
    User.fromPartial({
      id: account.id,
      login: account.login,
      type: account.isOrg ? 1 : 0,
      isAdmin: account.isAdmin,
      restricted: account.restricted,
      active: account.active,
      visibility: account.visibility,
      maxRepoCreation: account.maxRepoCreation,
      email: account.email,
      fullName: account.fullName,
      keepEmailPrivate: account.keepEmailPrivate,
    });
  const toOrg = (account: Account): Organization =>
    Organization.fromPartial({ id: account.id, name: account.login, visibility: account.visibility, repoAdminChangeTeamAccess: account.repoAdminChangeTeamAccess });
  const toTeam = (team: MemoryTeam): Team =>
    Team.fromPartial({
      id: team.id,
      orgId: team.orgId,
      name: team.name,
      permission: team.permission,
      includesAllRepositories: team.includesAllRepositories,
      canCreateOrgRepo: team.canCreateOrgRepo,
      unitsMap: team.unitsMap,
      units: Object.keys(team.unitsMap),
      organization: toOrg(accounts.get(team.orgId)!),
    });

  const users: UsersClient = {
    async getUser(request) {
      const account = request.username !== undefined ? byName(request.username) : accounts.get(request.id ?? 0);
      if (account === undefined) throw notFound('user');
      return { user: toUser(account) };
    },
    async batchGetUsers(request) {
      return { users: request.ids.flatMap((id) => (accounts.has(id) ? [toUser(accounts.get(id)!)] : [])) };
    },
    async resolveName(request) {
      const current = byName(request.name);
      const account = current ?? accounts.get(formerNames.get(request.name.toLowerCase()) ?? 0);
      if (account === undefined) throw notFound('user');
      const isMember = account.isOrg && orgTeamsOf(request.viewer?.userId ?? 0, account.id).length > 0;
      if (!visibleTo(account, request.viewer, isMember)) throw notFound('user');
      return { id: account.id, type: account.isOrg ? 1 : 0, name: account.login, redirect: current === undefined, visibility: account.visibility };
    },
    createUser: unexpected('createUser'),
    batchGetUsersByEmail: unexpected('batchGetUsersByEmail'),
    searchUsers: unexpected('searchUsers'),
    listUsers: unexpected('listUsers'),
    renameUser: unexpected('renameUser'),
    updateUser: unexpected('updateUser'),
    deleteUser: unexpected('deleteUser'),
    authenticatePassword: unexpected('authenticatePassword'),
  };

  const teamsClient: TeamsClient = {
    async listUserTeams(request) {
      const found = teams.filter((team) => team.members.has(request.userId) && (request.orgId === 0 || team.orgId === request.orgId));
      return {
        teams: found.map((team) =>
          TeamGrant.fromPartial({
            teamId: team.id,
            orgId: team.orgId,
            name: team.name,
            permission: team.permission,
            includesAllRepositories: team.includesAllRepositories,
            canCreateOrgRepo: team.canCreateOrgRepo,
            unitsMap: team.unitsMap,
          }),
        ),
      };
    },
    async listTeams(request) {
      const org = byName(request.org);
      const viewer = request.viewer?.userId ?? 0;
      if (org === undefined || !org.isOrg || !(request.viewer?.isAdmin || orgTeamsOf(viewer, org.id).length > 0)) throw notFound('org');
      const found = teams.filter((team) => team.orgId === org.id).sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
      return { teams: found.map(toTeam), total: found.length };
    },
    async getTeam(request) {
      const team = teams.find((candidate) => candidate.id === request.id);
      const viewer = request.viewer;
      const owner = team !== undefined && orgTeamsOf(viewer?.userId ?? 0, team.orgId).some((candidate) => candidate.permission === 'owner');
      if (team === undefined || !(viewer?.isAdmin || team.members.has(viewer?.userId ?? 0) || owner)) throw notFound('team');
      return { team: toTeam(team) };
    },
    async batchGetTeams(request) {
      return { teams: teams.filter((team) => request.ids.includes(team.id)).map(toTeam) };
    },
    createTeam: unexpected('createTeam'),
    searchTeams: unexpected('searchTeams'),
    updateTeam: unexpected('updateTeam'),
    deleteTeam: unexpected('deleteTeam'),
    listTeamMembers: unexpected('listTeamMembers'),
    getTeamMember: unexpected('getTeamMember'),
    addTeamMember: unexpected('addTeamMember'),
    removeTeamMember: unexpected('removeTeamMember'),
  };

  const orgs: OrgsClient = {
    async getOrg(request) {
      const org = request.id !== undefined ? accounts.get(request.id) : byName(request.name ?? '');
      if (org === undefined || !org.isOrg) throw notFound('org');
      return { org: toOrg(org) };
    },
    createOrg: unexpected('createOrg'),
    listOrgs: unexpected('listOrgs'),
    listUserOrgs: unexpected('listUserOrgs'),
    updateOrg: unexpected('updateOrg'),
    deleteOrg: unexpected('deleteOrg'),
    renameOrg: unexpected('renameOrg'),
    listMembers: unexpected('listMembers'),
    isMember: unexpected('isMember'),
    removeMember: unexpected('removeMember'),
    setMemberPublic: unexpected('setMemberPublic'),
    getOrgPermissions: unexpected('getOrgPermissions'),
  };

  const memory: AccountsMemory = {
    users,
    teams: teamsClient,
    orgs,
    addUser(login, options = {}) {
      const id = nextId++;
      accounts.set(id, {
        id,
        login,
        isOrg: false,
        isAdmin: options.isAdmin ?? false,
        restricted: options.restricted ?? false,
        active: options.active ?? true,
        visibility: options.visibility ?? 'public',
        maxRepoCreation: options.maxRepoCreation ?? -1,
        email: `${login.toLowerCase()}@example.com`,
        fullName: options.fullName ?? '',
        keepEmailPrivate: options.keepEmailPrivate ?? false,
        repoAdminChangeTeamAccess: false,
      });
      return id;
    },
    addOrg(name, options = {}) {
      const id = nextId++;
      accounts.set(id, {
        id,
        login: name,
        isOrg: true,
        isAdmin: false,
        restricted: false,
        active: true,
        visibility: options.visibility ?? 'public',
        maxRepoCreation: options.maxRepoCreation ?? -1,
        email: '',
        fullName: '',
        keepEmailPrivate: false,
        repoAdminChangeTeamAccess: options.repoAdminChangeTeamAccess ?? false,
      });
      memory.addTeam(id, 'Owners', { permission: 'owner', includesAllRepositories: true, canCreateOrgRepo: true, units: {}, members: options.owners });
      return id;
    },
    addTeam(orgId, name, options = {}) {
      const id = nextTeamId++;
      teams.push({
        id,
        orgId,
        name,
        permission: options.permission ?? 'none',
        includesAllRepositories: options.includesAllRepositories ?? false,
        canCreateOrgRepo: options.canCreateOrgRepo ?? false,
        unitsMap: options.units ?? { 'repo.code': 'write', 'repo.pulls': 'write' },
        members: new Set(options.members ?? []),
      });
      return id;
    },
    addMember(teamId, userId) {
      const team = teams.find((candidate) => candidate.id === teamId);
      if (team === undefined) throw new Error(`no team ${teamId}`);
      team.members.add(userId);
    },
    ownersTeam(orgId) {
      const team = teams.find((candidate) => candidate.orgId === orgId && candidate.permission === 'owner');
      if (team === undefined) throw new Error(`no Owners team in ${orgId}`);
      return team.id;
    },
    rename(id, login) {
      const account = accounts.get(id)!;
      formerNames.set(account.login.toLowerCase(), id);
      account.login = login;
    },
    setVisibility(id, visibility) {
      accounts.get(id)!.visibility = visibility;
    },
    actor(userId) {
      const account = accounts.get(userId);
      return { userId, isAdmin: account?.isAdmin ?? false, isRestricted: account?.restricted ?? false };
    },
  };
  return memory;
}

/** A method repos never calls: failing loudly shows a test reached it by mistake. */
function unexpected(method: string): () => Promise<never> {
  return () => Promise.reject(CairnError.unavailable(`accounts.${method} is not part of these tests`));
}
