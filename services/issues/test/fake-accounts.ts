/**
 * A real gRPC server standing in for accounts in issues' service tests: ResolveName answers from a fixed table of
 * accounts (what @mentions resolve to); BatchGetUsers and BatchGetUsersByEmail from `users` (mergers, schedulers,
 * posters, commit authors); TeamService's ListTeams and ListUserTeams answer from `teams` and `memberships` (team
 * review requests); every other method UNIMPLEMENTED. Pass `env()` to startService.
 */
import { silentLogger } from '@cairn/log';
import { User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Team, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { CairnError, createRpcServer, type RpcServer, anyCaller } from '@cairn/rpc';
import { unimplemented } from './harness';

export interface FakeAccount {
  id: number;
  name: string;
  /** 0: an individual, 1: an organization. */
  type?: number;
  /** Only these viewers may see the account (a private user); everyone when unset. */
  visibleTo?: readonly number[];
  /** Old names that redirect to this account. */
  oldNames?: readonly string[];
}

export interface FakeAccounts {
  server: RpcServer;
  /** Names ResolveName was asked for, in order. */
  asked: string[];
  /** Users by id, as BatchGetUsers and BatchGetUsersByEmail (case-insensitively) find them. */
  users: Map<number, User>;
  /** Teams of organizations (ListTeams answers those of the organization named, by `orgId` ↔ owner name `owner<id>`). */
  teams: Team[];
  /** user id → the ids of their teams (ListUserTeams). */
  memberships: Map<number, number[]>;
  /** Configuration pointing issues at this server. */
  env(): Record<string, string>;
  stop(): Promise<void>;
}

export async function startFakeAccounts(accounts: readonly FakeAccount[]): Promise<FakeAccounts> {
  const asked: string[] = [];
  const users = new Map<number, User>();
  const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
  server.addService(UserServiceService, {
    ...unimplemented(UserServiceService),
    async resolveName(request) {
      asked.push(request.name);
      const lower = request.name.toLowerCase();
      const viewerId = request.viewer?.userId ?? 0;
      for (const account of accounts) {
        const current = account.name.toLowerCase() === lower;
        const old = (account.oldNames ?? []).some((name) => name.toLowerCase() === lower);
        if (!current && !old) continue;
        if (account.visibleTo !== undefined && !account.visibleTo.includes(viewerId)) break;
        return { id: account.id, type: account.type ?? 0, name: account.name, redirect: !current, visibility: 'public' };
      }
      throw CairnError.notFound(`user does not exist [uid: 0, name: ${request.name}]`);
    },
    async batchGetUsers(request) {
      return { users: request.ids.flatMap((id) => users.get(id) ?? []) };
    },
    async batchGetUsersByEmail(request) {
      return {
        users: request.emails.flatMap((email) => {
          const user = [...users.values()].find((candidate) => candidate.email.toLowerCase() === email.toLowerCase());
          return user === undefined ? [] : [{ email, user }];
        }),
      };
    },
  }, anyCaller(UserServiceService));
  const teams: Team[] = [];
  const memberships = new Map<number, number[]>();
  server.addService(TeamServiceService, {
    ...unimplemented(TeamServiceService),
    async listTeams(request) {
      const found = teams.filter((team) => `owner${team.orgId}` === request.org);
      return { teams: found, total: found.length };
    },
    async listUserTeams(request) {
      const ids = memberships.get(request.userId) ?? [];
      const found = teams.filter((team) => ids.includes(team.id) && (request.orgId === 0 || team.orgId === request.orgId));
      return { teams: found.map((team) => ({ teamId: team.id, orgId: team.orgId, name: team.name, permission: team.permission, includesAllRepositories: false, canCreateOrgRepo: false, unitsMap: team.unitsMap })) };
    },
    async batchGetTeams(request) {
      return { teams: teams.filter((team) => request.ids.includes(team.id)) };
    },
  }, anyCaller(TeamServiceService));
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  return {
    server,
    asked,
    users,
    teams,
    memberships,
    env: () => ({ CAIRN__services_0X2E_accounts__ADDR: `127.0.0.1:${port}` }),
    stop: () => server.stop(),
  };
}
