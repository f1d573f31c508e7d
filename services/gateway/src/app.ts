/**
 * The gateway's HTTP application, built from what it is given (configuration, logger, service clients,
 * optionally the bus), so tests run it against in-memory fakes and production against gRPC. express's
 * router routes it, on a `node:http` server with the gateway's own request and response classes
 * (http/exchange.ts says why).
 */
import type http from 'node:http';
import type { CairnConfig } from '@cairn/config';
import { asyncApiDocument } from '@cairn/events';
import { HttpError, INTERNAL_ERROR_MESSAGE, JSON_CONTENT_TYPE, goJson } from '@cairn/http';
import type { Logger } from '@cairn/log';
import type { Subscription } from '@cairn/bus';
import type { ObjectStore } from '@cairn/storage';
import { API_PREFIX, createApiRouter } from './api/router';
import { ApiRegistry } from './api/registry';
import type { RegisteredRoute } from './api/types';
import { createAuthenticator } from './auth/authenticate';
import { attachmentDownloadHandler } from './attachments/download';
import { avatarHandler } from './avatars/route';
import { type GatewayBus, subscribeTokenInvalidation } from './auth/invalidation';
import { TokenCache } from './auth/token-cache';
import { PublicUserCache } from './cache/public-users';
import type { GatewayClients } from './clients';
import { GitRepoCache } from './git/repo-cache';
import { subscribeGitRepoCacheInvalidation } from './git/repo-cache-invalidation';
import { createArchiveRouter } from './git/archive-route';
import { createSmartHttpRouter } from './git/smart-http';
import { type DependencyCheck, healthzHandler } from './health/healthz';
import { type ErrorHandler, type GatewayRequest, type GatewayResponse, type NextFunction, createGatewayServer } from './http/exchange';
import { createRouter } from './http/express-router';
import { sendHttpError } from './http/respond';
import { withRequestContext } from './http/request-context';
import { markRoute } from './http/route-metrics';
import { registerRoutes } from './routes';
import { type SwaggerDocument, giteaDescription } from './swagger/document';
import { SWAGGER_PAGE_CSP, SWAGGER_PAGE_HTML } from './swagger/page';
import { cairnVersion } from './version';

export interface GatewayDependencies {
  config: CairnConfig;
  logger: Logger;
  clients: GatewayClients;
  /** Where token revocations arrive; without it cached tokens live out their TTL. */
  bus?: GatewayBus;
  /** The token cache; one with the defaults when not given. */
  tokenCache?: TokenCache;
  /** Repositories git fetched from lately (git/repo-cache.ts); one with the defaults when not given. */
  gitRepoCache?: GitRepoCache;
  /** Users as anonymous callers see them (cache/public-users.ts); one with the defaults when not given and `bus` is. */
  publicUserCache?: PublicUserCache;
  /** What `GET /api/healthz` checks (the gRPC services, in production); none when not given. */
  healthChecks?: readonly DependencyCheck[];
  /** Attachments' bytes; the caller opens it once at start-up (and closes it). */
  objects: ObjectStore;
}

export interface Gateway {
  /** Answers one request; its server must be one `createServer` makes. */
  listener(req: GatewayRequest, res: GatewayResponse): void;
  /** A `node:http` server (not listening yet) answering with `listener`. */
  createServer(): http.Server<typeof GatewayRequest, typeof GatewayResponse>;
  tokenCache: TokenCache;
  gitRepoCache: GitRepoCache;
  /** Undefined without events to keep it honest. */
  publicUserCache: PublicUserCache | undefined;
  routes: readonly RegisteredRoute[];
  /** The API description served at /swagger.v1.json. */
  description: SwaggerDocument;
  /** Stops listening for events (the HTTP server is the caller's). */
  close(): Promise<void>;
}

export async function createGateway(deps: GatewayDependencies): Promise<Gateway> {
  const { config, logger, clients } = deps;
  const tokenCache = deps.tokenCache ?? new TokenCache();
  const gitRepoCache = deps.gitRepoCache ?? new GitRepoCache();
  // Without events nothing would tell it that a user changed: then users are always asked for.
  const publicUserCache = deps.publicUserCache ?? (deps.bus === undefined ? undefined : new PublicUserCache());
  // The same goes for repositories outside git fetches (git fetches accept the TTL alone: git/repo-cache.ts).
  const anonymousRepos = deps.bus === undefined ? undefined : gitRepoCache;
  const services = { config, logger, clients, tokenCache, publicUsers: publicUserCache, anonymousRepos, objects: deps.objects };

  const api = new ApiRegistry(giteaDescription());
  registerRoutes(api);
  const description = api.describe(cairnVersion());
  const descriptionJson = goJson(description);

  const router = createRouter();

  // Gitea's health endpoint: a web route, outside the API and its sign-in rules, not in the API description.
  router.get('/api/healthz', markRoute('/api/healthz'), healthzHandler(config.appName, deps.healthChecks ?? [], logger));

  // Avatars: a web route as in Gitea, outside the API; every avatar_url points here.
  router.get('/avatars/:hash', markRoute('/avatars/{hash}'), avatarHandler);

  const authenticate = createAuthenticator({ config, clients, cache: tokenCache });

  // Attachments' downloads (every `browser_download_url`): a web route as in Gitea, authenticated as the API is.
  router.get('/attachments/:uuid', markRoute('/attachments/{uuid}'), attachmentDownloadHandler(services, authenticate));

  router.use(API_PREFIX, createApiRouter({ services, routes: api.routes, authenticate }));

  // `[api] ENABLE_SWAGGER` switches the description, its page and /api/v1/swagger off together, as in Gitea (and the
  // event stream's description with them).
  if (config.api.enableSwagger) {
    router.get('/swagger.v1.json', markRoute('/swagger.v1.json'), (_req, res) => {
      res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      res.end(descriptionJson);
    });
    router.get('/api/swagger', markRoute('/api/swagger'), (_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Content-Security-Policy', SWAGGER_PAGE_CSP);
      res.end(SWAGGER_PAGE_HTML);
    });
    // The public event stream's AsyncAPI document, with this installation's subjects and `ce-source`; the NATS
    // server's address is left to the operator (an internal address, maybe with credentials, is not published).
    let asyncApiJson: string | undefined;
    router.get('/api/asyncapi.json', markRoute('/api/asyncapi.json'), (_req, res) => {
      asyncApiJson ??= JSON.stringify(asyncApiDocument({ prefix: config.bus.prefix, rootUrl: config.server.rootUrl }));
      res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      res.end(asyncApiJson);
    });
  }

  // git's smart HTTP at {ROOT_URL}{owner}/{repo}.git: after the fixed paths, so none of them reads as an owner.
  router.use(createSmartHttpRouter({ services, authenticate, repoCache: gitRepoCache }));
  // Source archives at {ROOT_URL}{owner}/{repo}/archive/…: releases' and tags' zipball and tarball links.
  router.use(createArchiveRouter({ services, authenticate }));

  router.use((_req, res) => {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('404 page not found\n');
  });

  // Last resort: the router's own request errors (a malformed path escape) keep their 4xx; anything else is a logged, generic 500.
  const lastResort: ErrorHandler = (error, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendHttpError(res, new HttpError(status, (error as Error).message), config.server.rootUrl);
      return;
    }
    logger.error({ err: error, method: req.method, path: req.originalUrl.split('?')[0] }, 'request failed');
    sendHttpError(res, new HttpError(500, INTERNAL_ERROR_MESSAGE), config.server.rootUrl);
  };
  router.use(lastResort);

  // What the layers leave: an error once the answer had begun. It cannot be answered anymore, so the
  // connection is cut (as express's final handler does) rather than left with half an answer.
  const unanswered = (req: GatewayRequest, res: GatewayResponse): NextFunction => (error) => {
    if (error === undefined || error === null) return;
    logger.error({ err: error, method: req.method, path: req.originalUrl.split('?')[0] }, 'request failed after its answer began');
    res.destroy();
  };
  const listener = withRequestContext(logger, (req, res) => router.handle(req, res, unanswered(req, res)));

  const subscriptions: Subscription[] = [];
  const closeSubscriptions = () => Promise.all(subscriptions.map((subscription) => subscription.stop()));
  if (deps.bus !== undefined) {
    try {
      subscriptions.push(await subscribeTokenInvalidation({ bus: deps.bus, cache: tokenCache, users: publicUserCache, logger }));
      subscriptions.push(await subscribeGitRepoCacheInvalidation({ bus: deps.bus, cache: gitRepoCache }));
    } catch (error) {
      await closeSubscriptions();
      throw error;
    }
  }

  return {
    listener,
    createServer: () => createGatewayServer(listener),
    tokenCache,
    gitRepoCache,
    publicUserCache,
    routes: api.routes,
    description,
    close: async () => {
      await closeSubscriptions();
    },
  };
}
