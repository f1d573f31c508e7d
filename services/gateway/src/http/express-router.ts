/**
 * express's router (`express.Router()`), typed for the gateway's request and response classes. The router
 * reads only `url`, `method`, `params`, `baseUrl` and `originalUrl` of a request and calls its layers with
 * the objects it was handed; express's own typings assume the express application's objects instead.
 */
import express from 'express';
import type { HttpMethod } from '../swagger/document';
import type { ErrorHandler, GatewayRequest, GatewayResponse, Handler, NextFunction } from './exchange';

type MethodRoutes = { [M in HttpMethod]: (path: string, ...handlers: Handler[]) => GatewayRouter };

export interface GatewayRouter extends MethodRoutes {
  /** A router is itself a layer (mounted with `use(path, router)`). */
  (req: GatewayRequest, res: GatewayResponse, next: NextFunction): void;
  use(...handlers: Handler[]): GatewayRouter;
  use(handler: ErrorHandler): GatewayRouter;
  use(path: string, ...handlers: Array<Handler | GatewayRouter>): GatewayRouter;
  /** Runs a request through the layers; `done` gets what no layer answered (an error passed on, if any). */
  handle(req: GatewayRequest, res: GatewayResponse, done: NextFunction): void;
}

/** Case-sensitive, as Gitea's paths are (`/API/v1/Version` is not `/api/v1/version`). */
export function createRouter(): GatewayRouter {
  return express.Router({ caseSensitive: true }) as unknown as GatewayRouter;
}
