/** The accounts gRPC server: UserService, AccessTokenService, OrgService, TeamService and GpgKeyService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { createAccessTokenService } from './rpc/access-token-service';
import type { AccountsContext } from './rpc/context';
import { createGpgKeyService } from './rpc/gpg-key-service';
import { createOrgService } from './rpc/org-service';
import { createTeamService } from './rpc/team-service';
import { createUserService } from './rpc/user-service';
import { ACCESS_TOKEN_CALLERS, GPG_KEY_CALLERS, ORG_CALLERS, TEAM_CALLERS, USER_CALLERS } from './rpc/callers';

export function createAccountsServer(context: AccountsContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'accounts', logger });
  server.addService(UserServiceService, createUserService(context), USER_CALLERS);
  server.addService(AccessTokenServiceService, createAccessTokenService(context), ACCESS_TOKEN_CALLERS);
  server.addService(OrgServiceService, createOrgService(context), ORG_CALLERS);
  server.addService(TeamServiceService, createTeamService(context), TEAM_CALLERS);
  server.addService(GpgKeyServiceService, createGpgKeyService(context), GPG_KEY_CALLERS);
  return server;
}
