/**
 * What wraps every request, before any routing: a request id (the caller's `X-Request-Id` if it is plain
 * and short, else a new one), echoed in the response and ambient for everything after it (gRPC calls
 * carry it), one JSON log line and one metrics record (`cairn_http_*`) per request, and the security
 * header every answer carries.
 */
import { performance } from 'node:perf_hooks';
import { type Logger, newRequestId, runWithRequestContext, sanitizeRequestId } from '@cairn/log';
import type { GatewayRequest, GatewayResponse } from './exchange';
import { recordRequest } from './route-metrics';

/** The path of a URL, without its query: query strings may hold tokens. */
function pathOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

/** `handle` run for each request inside its request context. */
export function withRequestContext(
  logger: Logger,
  handle: (req: GatewayRequest, res: GatewayResponse) => void,
): (req: GatewayRequest, res: GatewayResponse) => void {
  // One listener shared by every response (`this`), so a request costs no closure.
  function onClose(this: GatewayResponse): void {
    // A client that went away before the answer was complete: nginx's 499.
    const status = this.writableFinished ? this.statusCode : 499;
    const durationMs = performance.now() - this.startedAt;
    const req = this.req;
    recordRequest(req.method ?? '', this, status, durationMs / 1000);
    // Checked first: a line nobody writes should cost no object.
    if (logger.isLevelEnabled('info')) {
      logger.info(
        { method: req.method, path: pathOf(req.originalUrl), status, duration_ms: durationMs, request_id: this.requestId },
        'request',
      );
    }
  }

  return (req, res) => {
    const requestId = sanitizeRequestId(req.headers['x-request-id']) ?? newRequestId();
    res.startedAt = performance.now();
    res.requestId = requestId;
    req.originalUrl = req.url ?? '/';
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('close', onClose);
    runWithRequestContext({ requestId }, () => handle(req, res));
  };
}
