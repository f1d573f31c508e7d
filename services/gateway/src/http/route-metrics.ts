/**
 * The `route` label of `cairn_http_*`: the template a request matched (`/api/v1/users/{username}`), never
 * its raw path, so the number of series stays bounded. The first layer that recognises the path marks
 * the response; the request-context middleware records it when the answer is done.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type HttpRouteRecorder, UNMATCHED_ROUTE, httpRouteRecorder } from '@cairn/metrics';

const routes = new WeakMap<Response, HttpRouteRecorder>();

/** Middleware marking every response that reaches it as answering `route`. */
export function markRoute(route: string): RequestHandler {
  const recorder = httpRouteRecorder(route);
  return (_req: Request, res: Response, next: NextFunction) => {
    routes.set(res, recorder);
    next();
  };
}

/** Marks one response (for a route recognised outside a `markRoute` layer, e.g. a 405). */
export function setRoute(res: Response, route: string): void {
  routes.set(res, httpRouteRecorder(route));
}

let unmatched: HttpRouteRecorder | undefined;

/** Counts and times one answered request under its route (`unmatched` when no route recognised it). */
export function recordRequest(req: Request, res: Response, status: number, seconds: number): void {
  const recorder = routes.get(res) ?? (unmatched ??= httpRouteRecorder(UNMATCHED_ROUTE));
  recorder.record(req.method, status, seconds);
}
