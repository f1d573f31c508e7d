/**
 * The /api/v1 router: the request-wide steps every API request goes through (body size, the
 * deprecated-query-token warning, authentication, the sign-in checks, sudo), the registered routes, and
 * Gitea-shaped answers for everything else (unknown path 404, known path with another method 405).
 */
import { type GoValues, HttpError, goFormString, httpErrorFromCairn, isHttpError, parseGoQuery } from '@cairn/http';
import { httpRouteRecorder } from '@cairn/metrics';
import { isCairnError } from '@cairn/rpc';
import type { Authenticate } from '../auth/authenticate';
import type { Caller } from '../auth/caller';
import { QUERY_TOKEN_WARNING, hasQueryToken, readCredentials } from '../auth/credentials';
import { applySudo, checkSignIn } from '../auth/sign-in-checks';
import { bodyTooLarge, declaresTooLargeBody } from '../http/body';
import type { ErrorHandler, GatewayRequest, GatewayResponse, Handler } from '../http/exchange';
import { type GatewayRouter, createRouter } from '../http/express-router';
import { sendHttpError, sendRedirect } from '../http/respond';
import { markRoute, setRoute } from '../http/route-metrics';
import { prepareRoute, rawQueryOf, runRoute } from './pipeline';
import type { GatewayServices, RegisteredRoute } from './types';

/** Where the router is mounted: Gitea's API prefix. */
export const API_PREFIX = '/api/v1';

/** `/users/{username}` → `/users/:username` (express; a wildcard `{filepath}` → `*filepath`) and a matcher for the 405 check. */
function expressPath(path: string, wildcards: readonly string[] = []): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => (wildcards.includes(name) ? `*${name}` : `:${name}`));
}

function pathMatcher(path: string, wildcards: readonly string[] = []): RegExp {
  const pattern = path
    .split(/(\{\w+\})/)
    .map((part) => (part.startsWith('{') ? (wildcards.includes(part.slice(1, -1)) ? '.+' : '[^/]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

/** express hands a wildcard parameter over as its segments: joined, it is the path the client wrote. */
function joinWildcards(req: GatewayRequest, wildcards: readonly string[]): void {
  const params = req.params as Record<string, string | string[]>;
  for (const name of wildcards) {
    const value = params[name];
    if (Array.isArray(value)) req.params[name] = value.join('/');
  }
}

export interface ApiRouterOptions {
  services: GatewayServices;
  routes: readonly RegisteredRoute[];
  authenticate: Authenticate;
}

export function createApiRouter({ services, routes, authenticate }: ApiRouterOptions): GatewayRouter {
  const { config } = services;
  const router = createRouter();

  /** After authentication: the sign-in checks and sudo; a promise only when sudo asks accounts. */
  const settleCaller = (req: GatewayRequest, query: GoValues, authenticated: Caller): void | Promise<void> => {
    checkSignIn(authenticated, config);
    const sudoName = goFormString(query, 'sudo') || (req.headers.sudo?.toString() ?? '');
    if (sudoName === '') {
      req.caller = authenticated;
      return;
    }
    return applySudo(authenticated, sudoName, services.clients).then((caller) => {
      req.caller = caller;
    });
  };

  /**
   * Gitea's API group middleware: leaves the caller and the parsed query on the request. Synchronous
   * unless it has to ask accounts (most requests: no credentials, or a cached token), so it costs no
   * promise then; it throws or rejects with the answer when the request is turned away.
   */
  const admit = (req: GatewayRequest, res: GatewayResponse, streamsBody = false): void | Promise<void> => {
    if (!streamsBody && declaresTooLargeBody(req, config.server.maxBodySize)) throw bodyTooLarge(config.server.maxBodySize);
    const query = parseGoQuery(rawQueryOf(req));
    req.query = query;
    if (hasQueryToken(query)) res.setHeader('X-Gitea-Warning', QUERY_TOKEN_WARNING);
    const credentials = readCredentials({
      authorization: req.headers.authorization,
      query,
      disableQueryAuthToken: config.security.disableQueryAuthToken,
    });
    const authenticated = authenticate(credentials, req);
    return authenticated instanceof Promise ? authenticated.then((caller) => settleCaller(req, query, caller)) : settleCaller(req, query, authenticated);
  };

  // One layer per route, in registration order: the first route whose path and method match answers.
  for (const route of routes) {
    const prepared = prepareRoute(route);
    const recorder = httpRouteRecorder(`${API_PREFIX}${route.path}`);
    const wildcards = route.pathWildcards ?? [];
    const answer: Handler = (req, res) => {
      // Before the request-wide steps, so a 401 or 403 is still counted under its route template.
      res.route = recorder;
      if (wildcards.length > 0) joinWildcards(req, wildcards);
      const admitted = admit(req, res, route.streamBody);
      return admitted === undefined ? runRoute(prepared, services, req, res) : admitted.then(() => runRoute(prepared, services, req, res));
    };
    router[route.method](expressPath(route.path, wildcards), answer);
  }

  // What no route answers goes through the same steps first (a bad token is a 401 on any API path, as in Gitea).
  router.use((req, res, next) => {
    const admitted = admit(req, res);
    return admitted === undefined ? next() : admitted.then(() => next());
  });

  if (config.api.enableSwagger) {
    router.get('/swagger', markRoute(`${API_PREFIX}/swagger`), (req, res) => {
      sendRedirect(req, res, 303, `${new URL(config.server.rootUrl).pathname}api/swagger`);
    });
  }

  const matchers = routes.map((route) => ({ method: route.method, path: route.path, matches: pathMatcher(route.path, route.pathWildcards) }));
  router.use((req, res, next) => {
    const path = req.path;
    const matching = matchers.filter((m) => m.matches.test(path));
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
  const answerError: ErrorHandler = (error, req, res, next) => {
    const answer = isCairnError(error) ? httpErrorFromCairn(error) : isHttpError(error) ? error : undefined;
    if (answer === undefined) {
      next(error);
      return;
    }
    if (answer.status >= 500) {
      services.logger.error({ err: answer.cause ?? answer, status: answer.status, method: req.method, path: req.path }, 'request failed');
    }
    sendHttpError(res, answer, config.server.rootUrl);
  };
  router.use(answerError);

  return router;
}
