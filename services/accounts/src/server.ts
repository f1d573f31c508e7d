/** The accounts gRPC server: UserService, AccessTokenService, OrgService and TeamService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { NO_REPOSITORIES } from './repos/repo-directory';
import { createAccessTokenService } from './rpc/access-token-service';
import type { AccountsContext } from './rpc/context';
import { createOrgService } from './rpc/org-service';
import { createTeamService } from './rpc/team-service';
import { createUserService } from './rpc/user-service';

export function createAccountsServer(context: AccountsContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'accounts', logger });
  server.addService(UserServiceService, createUserService(context));
  server.addService(AccessTokenServiceService, createAccessTokenService(context));
  server.addService(OrgServiceService, createOrgService(context));
  // No repositories exist until the repos service does: see repos/repo-directory.ts.
  server.addService(TeamServiceService, createTeamService(context, NO_REPOSITORIES));
  return server;
}
