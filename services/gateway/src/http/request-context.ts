/**
 * The first middleware: a request id (the caller's `X-Request-Id` if it is plain and short, else a new
 * one), echoed in the response and ambient for everything after it (gRPC calls carry it), one JSON log
 * line and one metrics record (`cairn_http_*`) per request, and the security header every answer carries.
 */
import type { NextFunction, Request, Response } from 'express';
import { type Logger, newRequestId, runWithRequestContext, sanitizeRequestId } from '@cairn/log';
import { recordRequest } from './route-metrics';

export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = sanitizeRequestId(req.headers['x-request-id']) ?? newRequestId();
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('close', () => {
      // A client that went away before the answer was complete: nginx's 499.
      const status = res.writableFinished ? res.statusCode : 499;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      recordRequest(req, res, status, durationMs / 1000);
      logger.info(
        {
          method: req.method,
          // The path only: query strings may hold tokens.
          path: req.originalUrl.split('?')[0],
          status,
          duration_ms: durationMs,
          request_id: requestId,
        },
        'request',
      );
    });
    runWithRequestContext({ requestId }, () => next());
  };
}
