/**
 * The `route` label of `cairn_http_*`: the template a request matched (`/api/v1/users/{username}`), never
 * its raw path, so the number of series stays bounded. The layer that answers a route marks the response
 * before anything can turn the request away; the request context records it when the answer is done.
 */
import { type HttpRouteRecorder, UNMATCHED_ROUTE, httpRouteRecorder } from '@cairn/metrics';
import type { GatewayResponse, Handler } from './exchange';

/** Layer marking every response that reaches it as answering `route`. */
export function markRoute(route: string): Handler {
  const recorder = httpRouteRecorder(route);
  return (_req, res, next) => {
    res.route = recorder;
    next();
  };
}

/** Marks one response (for a route recognised outside a `markRoute` layer, e.g. a 405). */
export function setRoute(res: GatewayResponse, route: string): void {
  res.route = httpRouteRecorder(route);
}

let unmatched: HttpRouteRecorder | undefined;

/** Counts and times one answered request under its route (`unmatched` when no route recognised it). */
export function recordRequest(method: string, res: GatewayResponse, status: number, seconds: number): void {
  const recorder = res.route ?? (unmatched ??= httpRouteRecorder(UNMATCHED_ROUTE));
  recorder.record(method, status, seconds);
}
