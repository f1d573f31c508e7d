/**
 * The services the gateway calls. Handlers and middleware see only these async client shapes, so tests
 * hand the app in-memory fakes and production hands it gRPC clients (`createServiceClients`).
 */
import type { Logger } from '@cairn/log';
import type { CairnConfig } from '@cairn/config';
import { type AsyncClientOf, createRpcClient } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { ActivityServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type TokensClient = AsyncClientOf<typeof AccessTokenServiceService>;
export type OrgsClient = AsyncClientOf<typeof OrgServiceService>;
export type TeamsClient = AsyncClientOf<typeof TeamServiceService>;
export type ActivityClient = AsyncClientOf<typeof ActivityServiceService>;

export interface GatewayClients {
  /** accounts: users. */
  users: UsersClient;
  /** accounts: personal access tokens. */
  tokens: TokensClient;
  /** accounts: organizations and their members. */
  orgs: OrgsClient;
  /** accounts: teams. */
  teams: TeamsClient;
  /** notifications: users' activity (the heatmap). */
  activity: ActivityClient;
}

/** gRPC clients to the services (`[services.<name>] ADDR`), each with its own circuit breaker. */
export function createServiceClients(config: CairnConfig, logger: Logger): GatewayClients & { close(): void } {
  const options = { target: config.services.accounts.addr, service: 'accounts', logger, deadlineMs: config.rpc.deadlineMs };
  const users = createRpcClient(UserServiceService, options);
  const tokens = createRpcClient(AccessTokenServiceService, options);
  const orgs = createRpcClient(OrgServiceService, options);
  const teams = createRpcClient(TeamServiceService, options);
  const activity = createRpcClient(ActivityServiceService, {
    target: config.services.notifications.addr,
    service: 'notifications',
    logger,
    deadlineMs: config.rpc.deadlineMs,
  });
  return {
    users,
    tokens,
    orgs,
    teams,
    activity,
    close: () => {
      users.close();
      tokens.close();
      orgs.close();
      teams.close();
      activity.close();
    },
  };
}
