/**
 * The gateway's express application, built from what it is given (configuration, logger, service
 * clients, optionally the bus), so tests run it against in-memory fakes and production against gRPC.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { CairnConfig } from '@cairn/config';
import { HttpError, INTERNAL_ERROR_MESSAGE, JSON_CONTENT_TYPE, goJson } from '@cairn/http';
import type { Logger } from '@cairn/log';
import type { Subscription } from '@cairn/bus';
import { API_PREFIX, createApiRouter } from './api/router';
import { ApiRegistry } from './api/registry';
import type { RegisteredRoute } from './api/types';
import { createAuthenticator } from './auth/authenticate';
import { type GatewayBus, subscribeTokenInvalidation } from './auth/invalidation';
import { TokenCache } from './auth/token-cache';
import type { GatewayClients } from './clients';
import { type DependencyCheck, healthzHandler } from './health/healthz';
import { sendHttpError } from './http/respond';
import { requestContext } from './http/request-context';
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
  /** What `GET /api/healthz` checks (the gRPC services, in production); none when not given. */
  healthChecks?: readonly DependencyCheck[];
}

export interface Gateway {
  app: express.Express;
  tokenCache: TokenCache;
  routes: readonly RegisteredRoute[];
  /** The API description served at /swagger.v1.json. */
  description: SwaggerDocument;
  /** Stops listening for events (the HTTP server is the caller's). */
  close(): Promise<void>;
}

export async function createGateway(deps: GatewayDependencies): Promise<Gateway> {
  const { config, logger, clients } = deps;
  const tokenCache = deps.tokenCache ?? new TokenCache();
  const services = { config, logger, clients, tokenCache };

  const api = new ApiRegistry(giteaDescription());
  registerRoutes(api);
  const description = api.describe(cairnVersion());
  const descriptionJson = goJson(description);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Paths are case-sensitive in Gitea (chi): /API/v1/Version is not /api/v1/version.
  app.set('case sensitive routing', true);
  app.use(requestContext(logger));

  // Gitea's health endpoint: a web route, outside the API and its sign-in rules, not in the API description.
  app.get('/api/healthz', markRoute('/api/healthz'), healthzHandler(config.appName, deps.healthChecks ?? []));

  app.use(API_PREFIX, createApiRouter({ services, routes: api.routes, authenticate: createAuthenticator({ config, clients, cache: tokenCache }) }));

  // `[api] ENABLE_SWAGGER` switches the description, its page and /api/v1/swagger off together, as in Gitea.
  if (config.api.enableSwagger) {
    app.get('/swagger.v1.json', markRoute('/swagger.v1.json'), (_req: Request, res: Response) => {
      res.setHeader('Content-Type', JSON_CONTENT_TYPE);
      res.end(descriptionJson);
    });
    app.get('/api/swagger', markRoute('/api/swagger'), (_req: Request, res: Response) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Content-Security-Policy', SWAGGER_PAGE_CSP);
      res.end(SWAGGER_PAGE_HTML);
    });
  }

  app.use((_req: Request, res: Response) => {
    res.status(404).setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('404 page not found\n');
  });

  // Last resort: express's own request errors keep their 4xx; anything else is a logged, generic 500.
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
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
  });

  const subscription: Subscription | undefined =
    deps.bus === undefined ? undefined : await subscribeTokenInvalidation({ bus: deps.bus, cache: tokenCache, logger });

  return {
    app,
    tokenCache,
    routes: api.routes,
    description,
    close: async () => {
      await subscription?.stop();
    },
  };
}
