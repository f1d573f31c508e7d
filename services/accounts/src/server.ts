/** The accounts gRPC server: UserService and AccessTokenService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createAccessTokenService } from './rpc/access-token-service';
import type { AccountsContext } from './rpc/context';
import { createUserService } from './rpc/user-service';

export function createAccountsServer(context: AccountsContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'accounts', logger });
  server.addService(UserServiceService, createUserService(context));
  server.addService(AccessTokenServiceService, createAccessTokenService(context));
  return server;
}
