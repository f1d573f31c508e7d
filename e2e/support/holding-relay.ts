/**
 * A loopback relay for kill tests: passes every request through to `target`, but holds the requests `hold` picks
 * until the test releases them, counting what became of them — so a test can stop a migration at a chosen request,
 * kill a process, and check that the request abandoned by the dead client was never forwarded.
 */
import http from 'node:http';
import type net from 'node:net';

export interface HoldingRelay {
  port: number;
  /** Requests that matched the hold rule (each is held until released). */
  held(): number;
  /** Held requests whose client went away before they were released (never forwarded). */
  abandoned(): number;
  /** Held requests whose answer the target finished sending. */
  served(): number;
  /** Lets every held request through (those still wanted). */
  releaseAll(): void;
  close(): Promise<void>;
}

/** What the hold rule sees of a request: method, path (no query) and the whole body. */
export type HoldRule = (request: { method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer }) => boolean;

export async function startHoldingRelay(target: URL, hold: HoldRule): Promise<HoldingRelay> {
  const gates: Array<() => void> = [];
  let abandoned = 0;
  let served = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const held = hold({ method: request.method ?? '', path: new URL(request.url ?? '/', 'http://relay').pathname, headers: request.headers, body });
      let gone = false;
      if (held) {
        response.once('close', () => {
          if (!response.headersSent && !gone) {
            gone = true;
            abandoned += 1;
          }
        });
      }
      const go = held ? new Promise<void>((resolve) => gates.push(resolve)) : Promise.resolve();
      void go.then(() => {
        if (gone) return;
        const headers: http.OutgoingHttpHeaders = { ...request.headers, host: target.host, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        const upstream = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
          if (held) answer.on('end', () => (served += 1));
        });
        upstream.on('error', () => response.destroy());
        upstream.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    held: () => gates.length,
    abandoned: () => abandoned,
    served: () => served,
    releaseAll() {
      for (const gate of gates) gate();
    },
    async close() {
      for (const gate of gates) gate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
