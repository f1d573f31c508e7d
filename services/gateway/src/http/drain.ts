/**
 * Graceful shutdown of an HTTP server. `server.close()` alone stops accepting connections but leaves every
 * keep-alive connection open until its idle timeout, and a request in flight answers with `keep-alive`
 * so its client may send another one. Draining also answers in-flight and new requests on open
 * connections with `Connection: close` and closes each connection as soon as it is idle, so stop() ends
 * when the last answer is out — or after the grace period, when the remaining connections are cut.
 */
import type http from 'node:http';

/** A server of any request and response classes (the gateway's own, or node's). */
export interface DrainableServer<
  Req extends typeof http.IncomingMessage = typeof http.IncomingMessage,
  Res extends typeof http.ServerResponse<InstanceType<Req>> = typeof http.ServerResponse,
> {
  http: http.Server<Req, Res>;
  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then closes what is left. */
  drain(graceMs: number): Promise<void>;
}

export function drainable<Req extends typeof http.IncomingMessage, Res extends typeof http.ServerResponse<InstanceType<Req>>>(
  server: http.Server<Req, Res>,
): DrainableServer<Req, Res> {
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;

  // One shared listener (no closure per request): `this` is the response that closed.
  function onResponseClose(this: http.ServerResponse): void {
    inFlight.delete(this);
    if (draining) server.closeIdleConnections();
  }

  // Before the application's own 'request' listener, so a response written synchronously still sees the flag.
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.on('close', onResponseClose);
  });

  let drained: Promise<void> | undefined;
  return {
    http: server,
    drain: (graceMs) =>
      (drained ??= new Promise<void>((resolve) => {
        draining = true;
        for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
        const cutOff = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(cutOff);
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
