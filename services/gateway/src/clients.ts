/**
 * The services the gateway calls. Handlers and middleware see only these async client shapes, so tests
 * hand the app in-memory fakes and production hands it gRPC clients (`createAccountsClients`).
 */
import type { Logger } from '@cairn/log';
import type { CairnConfig } from '@cairn/config';
import { type AsyncClientOf, createRpcClient } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type TokensClient = AsyncClientOf<typeof AccessTokenServiceService>;
export type OrgsClient = AsyncClientOf<typeof OrgServiceService>;
export type TeamsClient = AsyncClientOf<typeof TeamServiceService>;

export interface GatewayClients {
  /** accounts: users. */
  users: UsersClient;
  /** accounts: personal access tokens. */
  tokens: TokensClient;
  /** accounts: organizations and their members. */
  orgs: OrgsClient;
  /** accounts: teams. */
  teams: TeamsClient;
}

/** gRPC clients to accounts (`[services.accounts] ADDR`), each with its own circuit breaker. */
export function createAccountsClients(config: CairnConfig, logger: Logger): GatewayClients & { close(): void } {
  const options = { target: config.services.accounts.addr, service: 'accounts', logger, deadlineMs: config.rpc.deadlineMs };
  const users = createRpcClient(UserServiceService, options);
  const tokens = createRpcClient(AccessTokenServiceService, options);
  const orgs = createRpcClient(OrgServiceService, options);
  const teams = createRpcClient(TeamServiceService, options);
  return {
    users,
    tokens,
    orgs,
    teams,
    close: () => {
      users.close();
      tokens.close();
      orgs.close();
      teams.close();
    },
  };
}
