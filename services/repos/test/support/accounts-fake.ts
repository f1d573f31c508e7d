/**
 * accounts in memory, for repos tests: users, organizations and their teams with members — enough for the
 * calls repos makes (GetUser, BatchGetUsers, ListTeams, ListUserTeams). Any other call rejects as a dead
 * service would, so a test that reaches one by mistake fails loudly.
 */
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Team, TeamGrant } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { CairnError } from '@cairn/rpc';
import type { OrgsClient, TeamsClient, UsersClient } from '../../src/rpc/context';

/** A client whose listed methods answer and whose others reject with UNAVAILABLE. */
function partialClient<T extends object>(service: string, methods: Partial<T>): T {
  return new Proxy(methods as T, {
    get: (target, method) => {
      if (method === 'then') return undefined;
      const handler = (target as Record<PropertyKey, unknown>)[method];
      return handler ?? (() => Promise.reject(CairnError.unavailable(`${service}.${String(method)} is not part of this test`)));
    },
  });
}

interface FakeTeam {
  id: number;
  orgId: number;
  name: string;
  /** none|read|write|admin|owner. */
  permission: string;
  includesAllRepositories: boolean;
  unitsMap: Record<string, string>;
  members: Set<number>;
}

export interface AccountsFake {
  users: UsersClient;
  teams: TeamsClient;
  orgs: OrgsClient;
  addUser(login: string, fields?: { isAdmin?: boolean }): number;
  addOrg(name: string): number;
  /** A team of the organization; `units` maps unit keys to modes (default: write on code and pulls). */
  addTeam(orgId: number, name: string, fields?: { permission?: string; units?: Record<string, string>; includesAllRepositories?: boolean }): number;
  addMember(teamId: number, userId: number): void;
  renameUser(id: number, login: string): void;
  /** The Actor a signed-in user calls with. */
  actor(userId: number): Actor;
}

export function accountsFake(): AccountsFake {
  let nextId = 1;
  const accounts = new Map<number, { id: number; login: string; isOrg: boolean; isAdmin: boolean }>();
  const teams: FakeTeam[] = [];

  const byName = (name: string) => [...accounts.values()].find((account) => account.login.toLowerCase() === name.toLowerCase());
  const toUser = (account: { id: number; login: string; isOrg: boolean }) => User.fromPartial({ id: account.id, login: account.login, type: account.isOrg ? 1 : 0 });
  const isMember = (userId: number, orgId: number) => teams.some((team) => team.orgId === orgId && team.members.has(userId));

  const users = partialClient<UsersClient>('accounts.UserService', {
    async getUser(request) {
      const account = request.username !== undefined ? byName(request.username) : accounts.get(request.id ?? 0);
      if (account === undefined) throw CairnError.notFound('user does not exist', { reason: 'user_not_found' });
      return { user: toUser(account) };
    },
    async batchGetUsers(request) {
      return { users: request.ids.flatMap((id) => (accounts.has(id) ? [toUser(accounts.get(id)!)] : [])) };
    },
  });

  const teamsClient = partialClient<TeamsClient>('accounts.TeamService', {
    async listTeams(request) {
      const org = byName(request.org);
      const viewer = request.viewer?.userId ?? 0;
      if (org === undefined || !org.isOrg || !(request.viewer?.isAdmin || isMember(viewer, org.id))) {
        throw CairnError.notFound(`org does not exist [id: 0, name: ${request.org}]`, { reason: 'org_not_found' });
      }
      const found = teams.filter((team) => team.orgId === org.id);
      return { teams: found.map((team) => Team.fromPartial({ id: team.id, orgId: team.orgId, name: team.name, permission: team.permission })), total: found.length };
    },
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
            unitsMap: team.unitsMap,
          }),
        ),
      };
    },
  });

  return {
    users,
    teams: teamsClient,
    orgs: partialClient<OrgsClient>('accounts.OrgService', {}),
    addUser(login, fields = {}) {
      const id = nextId++;
      accounts.set(id, { id, login, isOrg: false, isAdmin: fields.isAdmin ?? false });
      return id;
    },
    addOrg(name) {
      const id = nextId++;
      accounts.set(id, { id, login: name, isOrg: true, isAdmin: false });
      return id;
    },
    addTeam(orgId, name, fields = {}) {
      const id = 1000 + teams.length;
      const permission = fields.permission ?? 'none';
      const unitsMap = fields.units ?? { 'repo.code': 'write', 'repo.pulls': 'write' };
      teams.push({ id, orgId, name, permission, includesAllRepositories: fields.includesAllRepositories ?? false, unitsMap, members: new Set() });
      return id;
    },
    addMember(teamId, userId) {
      teams.find((team) => team.id === teamId)?.members.add(userId);
    },
    renameUser(id, login) {
      const account = accounts.get(id);
      if (account !== undefined) account.login = login;
    },
    actor(userId) {
      return { userId, isAdmin: accounts.get(userId)?.isAdmin ?? false, isRestricted: false };
    },
  };
}
