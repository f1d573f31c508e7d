/**
 * What Gitea checks after authentication on every API request (routers/api/v1/api.go
 * `verifyAuthWithOptions` and `sudo`). These answers carry only `message`, no `url`, as Gitea's do.
 */
import type { CairnConfig } from '@cairn/config';
import { HttpError } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import type { GatewayClients } from '../clients';
import { viewerOf, type Caller } from './caller';

export const PROHIBITED_LOGIN_MESSAGE = 'This account is prohibited from signing in, please contact your site administrator.';
export const SIGN_IN_REQUIRED_MESSAGE = 'Only signed in user is allowed to call APIs.';
export const SUDO_DENIED_MESSAGE = 'Only administrators allowed to sudo.';

export function mustChangePasswordMessage(rootUrl: string): string {
  return `You must change your password. Change it at: ${rootUrl}user/change_password`;
}

/**
 * Inactive or prohibited users and users who must change their password are refused (403) on every API
 * route; with `[service] REQUIRE_SIGNIN_VIEW`, so is every anonymous request.
 */
export function checkSignIn(caller: Caller, config: CairnConfig): void {
  const { user } = caller;
  if (user === undefined) {
    if (config.service.requireSigninView) throw HttpError.messageOnly(403, SIGN_IN_REQUIRED_MESSAGE);
    return;
  }
  if (!user.active || user.prohibitLogin) throw HttpError.messageOnly(403, PROHIBITED_LOGIN_MESSAGE);
  if (user.mustChangePassword) throw HttpError.messageOnly(403, mustChangePasswordMessage(config.server.rootUrl));
}

/**
 * `?sudo=<name>` or `Sudo: <name>`: a site administrator acts as another user (unknown user: 404); anyone
 * else asking is refused. The token's scopes (if any) still bound what the request may do.
 */
export async function applySudo(caller: Caller, sudoName: string, clients: GatewayClients): Promise<Caller> {
  if (sudoName === '') return caller;
  if (caller.user === undefined || !caller.user.isAdmin) throw HttpError.messageOnly(403, SUDO_DENIED_MESSAGE);
  try {
    // Asked as the admin, who sees every user.
    const { user } = await clients.users.getUser({ username: sudoName, viewer: viewerOf(caller.user) });
    if (user === undefined) throw HttpError.notFound();
    return { ...caller, user };
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) throw HttpError.notFound();
    throw error;
  }
}
