/**
 * One API request through its route, in Gitea's middleware order: token scope → signed in / site admin →
 * context user → explore sign-in → self or admin → Basic auth → body → handler. Every failure on the way
 * becomes Gitea's error answer; service errors are mapped by the route's table.
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
import { Code, isCairnError } from '@cairn/rpc';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Caller } from '../auth/caller';
import { readJsonBody } from '../http/body';
import { sendJson } from '../http/respond';
import { isUserVisibleTo } from '../users/visibility';
import type { ApiContext, GatewayServices, RegisteredRoute } from './types';

export const TOKEN_REQUIRED_MESSAGE = 'token is required';
export const SITE_ADMIN_REQUIRED_MESSAGE = 'user should be the site admin';
export const SELF_OR_ADMIN_MESSAGE = 'doer should be the site admin or be same as the contextUser';
export const BASIC_AUTH_REQUIRED_MESSAGE = 'auth required';
export const EXPLORE_SIGN_IN_MESSAGE = 'you must be signed in to search for users';

/** Gitea's answer for a `{username}` that names no user (the redirect lookup's error); also for one the caller may not see. */
export function userNotFound(name: string): HttpError {
  return new HttpError(404, `user redirect does not exist [name: ${name}]`);
}

async function resolveContextUser(route: RegisteredRoute, name: string, caller: Caller, services: GatewayServices): Promise<User> {
  const doer = caller.user;
  let user: User | undefined;
  if (doer !== undefined && doer.login.toLowerCase() === name.toLowerCase()) {
    user = doer;
  } else {
    try {
      user = (await services.clients.users.getUser({ username: name })).user;
    } catch (error) {
      if (!(isCairnError(error) && error.code === Code.NOT_FOUND)) throw error;
    }
  }
  if (user === undefined || (route.contextUser === 'visible' && !isUserVisibleTo(user, doer))) throw userNotFound(name);
  return user;
}

export function rawQueryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}

export async function runRoute(route: RegisteredRoute, caller: Caller, services: GatewayServices, req: Request, res: Response): Promise<void> {
  const { config } = services;
  const doer = caller.user;

  if (route.scope !== undefined && caller.tokenScopes !== undefined) {
    const check = checkTokenScopes(caller.tokenScopes, req.method, [route.scope]);
    if (!check.allowed) throw HttpError.forbidden(check.message);
  }
  if ((route.auth === 'required' || route.auth === 'admin') && doer === undefined) {
    throw HttpError.unauthorized(TOKEN_REQUIRED_MESSAGE);
  }
  if (route.auth === 'admin' && !doer?.isAdmin) throw HttpError.forbidden(SITE_ADMIN_REQUIRED_MESSAGE);

  const params = req.params as Record<string, string>;
  const contextUser =
    route.contextUser === undefined ? undefined : await resolveContextUser(route, params.username ?? '', caller, services);

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
    contextUser,
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
  if (reply.body === undefined) res.status(reply.status).end();
  else sendJson(res, reply.status, reply.body);
}
