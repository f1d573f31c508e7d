/**
 * The services the gateway calls. Handlers and middleware see only these async client shapes, so tests
 * hand the app in-memory fakes and production hands it gRPC clients (`createAccountsClients`).
 */
import type { Logger } from '@cairn/log';
import type { CairnConfig } from '@cairn/config';
import { type AsyncClientOf, createRpcClient } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type TokensClient = AsyncClientOf<typeof AccessTokenServiceService>;

export interface GatewayClients {
  /** accounts: users. */
  users: UsersClient;
  /** accounts: personal access tokens. */
  tokens: TokensClient;
}

/** gRPC clients to accounts (`[services.accounts] ADDR`), each with its own circuit breaker. */
export function createAccountsClients(config: CairnConfig, logger: Logger): GatewayClients & { close(): void } {
  const options = { target: config.services.accounts.addr, service: 'accounts', logger, deadlineMs: config.rpc.deadlineMs };
  const users = createRpcClient(UserServiceService, options);
  const tokens = createRpcClient(AccessTokenServiceService, options);
  return {
    users,
    tokens,
    close: () => {
      users.close();
      tokens.close();
    },
  };
}
