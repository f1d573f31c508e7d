/**
 * The /api/v1 express router: the request-wide steps every API request goes through (body size, the
 * deprecated-query-token warning, authentication, the sign-in checks, sudo), the registered routes, and
 * Gitea-shaped answers for everything else (unknown path 404, known path with another method 405).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { HttpError, goFormString, httpErrorFromCairn, isHttpError, parseGoQuery } from '@cairn/http';
import { isCairnError } from '@cairn/rpc';
import type { Authenticate } from '../auth/authenticate';
import { ANONYMOUS, type Caller } from '../auth/caller';
import { QUERY_TOKEN_WARNING, hasQueryToken, readCredentials } from '../auth/credentials';
import { applySudo, checkSignIn } from '../auth/sign-in-checks';
import { bodyTooLarge, declaresTooLargeBody } from '../http/body';
import { sendHttpError } from '../http/respond';
import { markRoute, setRoute } from '../http/route-metrics';
import { rawQueryOf, runRoute } from './pipeline';
import type { GatewayServices, RegisteredRoute } from './types';

const callers = new WeakMap<Request, Caller>();

/** Where the router is mounted: Gitea's API prefix. */
export const API_PREFIX = '/api/v1';

/** `/users/{username}` → `/users/:username` (express) and a matcher for the 405 check. */
function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function pathMatcher(path: string): RegExp {
  const pattern = path
    .split(/(\{\w+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

export interface ApiRouterOptions {
  services: GatewayServices;
  routes: readonly RegisteredRoute[];
  authenticate: Authenticate;
}

export function createApiRouter({ services, routes, authenticate }: ApiRouterOptions): express.Router {
  const { config } = services;
  const router = express.Router({ caseSensitive: true });

  // Before authentication, so a 401 or 403 is still counted under its route template.
  for (const route of routes) router[route.method](expressPath(route.path), markRoute(`${API_PREFIX}${route.path}`));

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    if (declaresTooLargeBody(req, config.server.maxBodySize)) throw bodyTooLarge(config.server.maxBodySize);
    const query = parseGoQuery(rawQueryOf(req));
    if (hasQueryToken(query)) res.setHeader('X-Gitea-Warning', QUERY_TOKEN_WARNING);
    const credentials = readCredentials({
      authorization: req.headers.authorization,
      query,
      disableQueryAuthToken: config.security.disableQueryAuthToken,
    });
    const authenticated = await authenticate(credentials);
    checkSignIn(authenticated, config);
    const sudoName = goFormString(query, 'sudo') || (req.headers.sudo?.toString() ?? '');
    callers.set(req, await applySudo(authenticated, sudoName, services.clients));
    next();
  });

  for (const route of routes) {
    router[route.method](expressPath(route.path), async (req: Request, res: Response) => {
      try {
        await runRoute(route, callers.get(req) ?? ANONYMOUS, services, req, res);
      } catch (error) {
        if (isCairnError(error)) throw httpErrorFromCairn(error, route.errors);
        throw error;
      }
    });
  }

  if (config.api.enableSwagger) {
    router.get('/swagger', markRoute(`${API_PREFIX}/swagger`), (_req: Request, res: Response) => {
      res.redirect(303, `${new URL(config.server.rootUrl).pathname}api/swagger`);
    });
  }

  const matchers = routes.map((route) => ({ method: route.method, path: route.path, matches: pathMatcher(route.path) }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    const matching = matchers.filter((m) => m.matches.test(req.path));
    const allowed = matching.map((m) => m.method.toUpperCase());
    if (allowed.length === 0) {
      next(HttpError.notFound());
      return;
    }
    setRoute(res, `${API_PREFIX}${matching[0].path}`);
    if (allowed.includes('GET')) allowed.push('HEAD');
    res.setHeader('Allow', allowed.join(', '));
    next(new HttpError(405, 'method not allowed'));
  });

  // Errors of this router are answered here, in Gitea's shapes; server-side failures are logged with their cause.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const answer = isCairnError(error) ? httpErrorFromCairn(error) : isHttpError(error) ? error : undefined;
    if (answer === undefined) {
      next(error);
      return;
    }
    if (answer.status >= 500) {
      services.logger.error({ err: answer.cause ?? answer, status: answer.status, method: req.method, path: req.path }, 'request failed');
    }
    sendHttpError(res, answer, config.server.rootUrl);
  });

  return router;
}
