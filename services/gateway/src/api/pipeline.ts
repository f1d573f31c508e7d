/**
 * One API request through its route, in Gitea's middleware order: token scopes (and public-only tokens on
 * routes closed to them) → signed in / site admin → account names in the path (renamed: 307; unknown or
 * hidden: 404) and the context user → public-only token on a non-public user → explore sign-in → self or
 * admin → Basic auth → body → handler. Every failure on the way becomes Gitea's error answer; service errors
 * are mapped by the route's table.
 */
import type { Request, Response } from 'express';
import {
  EXPOSE_HEADERS_HEADER,
  HttpError,
  LINK_HEADER,
  TOTAL_COUNT_HEADER,
  appendExposeHeaders,
  checkTokenScopes,
  linkHeader,
  listOptions,
  parseGoQuery,
} from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { isPublicOnly, viewerOf, type Caller } from '../auth/caller';
import { readJsonBody } from '../http/body';
import { sendJson, sendRedirect } from '../http/respond';
import { accountNameParams, loadAccount, renamedLocation, resolveAccount } from './account-name';
import type { ApiContext, GatewayServices, NamedAccount, RegisteredRoute } from './types';

export const TOKEN_REQUIRED_MESSAGE = 'token is required';
export const SITE_ADMIN_REQUIRED_MESSAGE = 'user should be the site admin';
export const SELF_OR_ADMIN_MESSAGE = 'doer should be the site admin or be same as the contextUser';
export const BASIC_AUTH_REQUIRED_MESSAGE = 'auth required';
export const EXPLORE_SIGN_IN_MESSAGE = 'you must be signed in to search for users';
export const PUBLIC_ONLY_USER_MESSAGE = 'token scope is limited to public users';
export const PUBLIC_ONLY_ENDPOINT_MESSAGE = 'this endpoint is not available for public-only tokens';

/** The accounts the path names, the context user, or the rename to answer with. */
interface PathAccounts {
  accounts: Record<string, NamedAccount>;
  contextUser: User | undefined;
  renamed?: { param: string; name: string };
}

/**
 * Resolves every `{username}`/`{org}` parameter in path order. The context user comes from GetUser as the
 * caller sees it — their own name needs no call: the signed-in user is who they are.
 */
async function resolvePathAccounts(
  route: RegisteredRoute,
  params: Record<string, string>,
  doer: User | undefined,
  viewer: Actor | undefined,
  services: GatewayServices,
): Promise<PathAccounts> {
  const found: PathAccounts = { accounts: {}, contextUser: undefined };
  for (const param of accountNameParams(route.path)) {
    const name = params[param] ?? '';
    if (param === 'username' && route.contextUser !== undefined) {
      const resolution =
        doer !== undefined && doer.login.toLowerCase() === name.toLowerCase()
          ? { kind: 'found' as const, value: doer }
          : await loadAccount(services, viewer, param, name, async () => {
              const { user } = await services.clients.users.getUser({ username: name, viewer });
              if (user === undefined) throw new Error('GetUser answered without a user');
              return user;
            });
      if (resolution.kind === 'renamed') return { ...found, renamed: { param, name: resolution.name } };
      const user = resolution.value;
      found.contextUser = user;
      found.accounts[param] = { id: user.id, type: user.type, name: user.login };
    } else {
      const resolution = await resolveAccount(services, viewer, param, name);
      if (resolution.kind === 'renamed') return { ...found, renamed: { param, name: resolution.name } };
      found.accounts[param] = resolution.value;
    }
  }
  return found;
}

export function rawQueryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}

export async function runRoute(route: RegisteredRoute, caller: Caller, services: GatewayServices, req: Request, res: Response): Promise<void> {
  const { config } = services;
  const doer = caller.user;
  const viewer = viewerOf(doer);
  const scopes = route.scope === undefined ? [] : typeof route.scope === 'string' ? [route.scope] : route.scope;

  if (caller.tokenScopes !== undefined) {
    for (const category of scopes) {
      const check = checkTokenScopes(caller.tokenScopes, req.method, [category]);
      if (!check.allowed) throw HttpError.forbidden(check.message);
    }
  }
  if (route.denyPublicOnly && isPublicOnly(caller)) throw HttpError.forbidden(PUBLIC_ONLY_ENDPOINT_MESSAGE);
  if ((route.auth === 'required' || route.auth === 'admin') && doer === undefined) {
    throw HttpError.unauthorized(TOKEN_REQUIRED_MESSAGE);
  }
  if (route.auth === 'admin' && !doer?.isAdmin) throw HttpError.forbidden(SITE_ADMIN_REQUIRED_MESSAGE);

  const params = req.params as Record<string, string>;
  const { accounts, contextUser, renamed } = await resolvePathAccounts(route, params, doer, viewer, services);
  if (renamed !== undefined) {
    sendRedirect(req, res, 307, renamedLocation(req, route.path, renamed.param, renamed.name, config.server.rootUrl));
    return;
  }

  // A public-only token reaches public users only (Gitea's checkTokenPublicOnly on user-scoped routes).
  if (contextUser !== undefined && scopes.includes('user') && isPublicOnly(caller) && contextUser.visibility !== 'public') {
    throw HttpError.forbidden(PUBLIC_ONLY_USER_MESSAGE);
  }
  if (route.exploreSignIn && doer === undefined && (config.service.requireSigninView || config.explore.requireSigninView)) {
    throw HttpError.unauthorized(EXPLORE_SIGN_IN_MESSAGE);
  }
  if (route.selfOrAdmin && !doer?.isAdmin && (doer === undefined || doer.id !== contextUser?.id)) {
    throw HttpError.forbidden(SELF_OR_ADMIN_MESSAGE);
  }
  if (route.auth === 'basic' && (doer === undefined || !caller.isBasicAuth)) {
    throw HttpError.unauthorized(BASIC_AUTH_REQUIRED_MESSAGE);
  }

  let body: unknown;
  if (route.body !== undefined) {
    const bound = route.body.bind(await readJsonBody(req, config.server.maxBodySize));
    if (!bound.ok) throw HttpError.unprocessable(bound.message);
    body = bound.value;
  }

  const rawQuery = rawQueryOf(req);
  const query = parseGoQuery(rawQuery);
  const ctx: ApiContext<unknown> = {
    services,
    caller,
    doer,
    viewer,
    contextUser,
    accounts,
    params,
    query,
    body,
    listOptions: () => listOptions(query, config.api),
    setLinkHeader: (total, pageSize) => {
      const value = linkHeader({ rootUrl: config.server.rootUrl, path: req.originalUrl.split('?')[0], rawQuery, total, pageSize });
      if (value === undefined) return;
      res.setHeader(LINK_HEADER, value);
      res.setHeader(EXPOSE_HEADERS_HEADER, appendExposeHeaders(res.getHeader(EXPOSE_HEADERS_HEADER)?.toString(), LINK_HEADER));
    },
    setTotalCount: (total) => {
      res.setHeader(TOTAL_COUNT_HEADER, String(total));
      res.setHeader(EXPOSE_HEADERS_HEADER, appendExposeHeaders(res.getHeader(EXPOSE_HEADERS_HEADER)?.toString(), TOTAL_COUNT_HEADER));
    },
  };

  const reply = await route.handler(ctx);
  if (reply.location !== undefined) sendRedirect(req, res, reply.status, reply.location);
  else if (reply.body === undefined) res.status(reply.status).end();
  else sendJson(res, reply.status, reply.body);
}
