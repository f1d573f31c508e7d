/**
 * The request and response classes of the gateway's `node:http` server, standing in for express's own.
 * express routes (its router, `express.Router()`) with whatever objects the server hands it; the express
 * application instead swaps the prototype of every request and response to its own, and that swap made
 * objects V8 can no longer optimise for: it cost more than everything else the gateway does per request.
 * These classes give the router and the gateway's steps exactly what they use, as fields fixed at
 * construction: what the router sets (`params`, `baseUrl`, `originalUrl`), express's `req.path`, and the
 * gateway's per-request state (who calls, the parsed query, timing, the route template for metrics).
 */
import http from 'node:http';
import parseurl from 'parseurl';
import type { GoValues } from '@cairn/http';
import type { HttpRouteRecorder } from '@cairn/metrics';
import { ANONYMOUS, type Caller } from '../auth/caller';

export class GatewayRequest extends http.IncomingMessage {
  /** The matched route's path parameters (set by the router). */
  params: Record<string, string> = {};
  /** Where the current router is mounted, e.g. `/api/v1` (set by the router; `url` is then below it). */
  baseUrl = '';
  /** The URL as received (`url` is rewritten below a mount while a mounted router runs). */
  originalUrl = '';
  /** Who the request acts for, once the API's request-wide steps passed. */
  caller: Caller = ANONYMOUS;
  /** The query string as Go's url.ParseQuery reads it, once the API's request-wide steps parsed it. */
  query: GoValues | undefined = undefined;

  /** express's `req.path`: the path below the current mount, without the query (as the router matched it). */
  get path(): string {
    return parseurl(this)?.pathname ?? '';
  }
}

export class GatewayResponse extends http.ServerResponse<GatewayRequest> {
  /** `performance.now()` when the request arrived. */
  startedAt = 0;
  requestId = '';
  /** The metrics of the route template that recognised the request; none: `unmatched`. */
  route: HttpRouteRecorder | undefined = undefined;
}

export type NextFunction = (error?: unknown) => void;
export type Handler = (req: GatewayRequest, res: GatewayResponse, next: NextFunction) => void | Promise<void>;
/** Four parameters: the router tells error handlers apart by their arity. */
export type ErrorHandler = (error: unknown, req: GatewayRequest, res: GatewayResponse, next: NextFunction) => void;

/** A server whose requests and responses are the gateway's classes. */
export function createGatewayServer(listener: (req: GatewayRequest, res: GatewayResponse) => void): http.Server<typeof GatewayRequest, typeof GatewayResponse> {
  return http.createServer({ IncomingMessage: GatewayRequest, ServerResponse: GatewayResponse }, listener);
}
