/**
 * A webhook receiver on loopback for the end-to-end tests: it records every request (path, headers, raw body) and
 * counts connections, so a test can tell "delivered" from "never contacted". Paths tell hooks apart.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HookReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  received: ReceivedDelivery[];
  connections(): number;
  /** What to answer (default 200). */
  answer(status: number): void;
  /** Requests to `path` are recorded but left unanswered (the sender waits) until `release()`. */
  hold(path: string): { release(): void };
  /** Resolves with the first delivery to `path` that `match` accepts, waiting up to `timeoutMs`. */
  waitFor(path: string, match?: (delivery: ReceivedDelivery) => boolean, timeoutMs?: number): Promise<ReceivedDelivery>;
  close(): Promise<void>;
}

export async function startHookReceiver(port = 0): Promise<HookReceiver> {
  const received: ReceivedDelivery[] = [];
  let status = 200;
  let connections = 0;
  const waiters = new Set<() => void>();
  const held = new Map<string, http.ServerResponse[]>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = request.url ?? '';
      received.push({ path: at, method: request.method ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const holding = held.get(at);
      if (holding !== undefined) holding.push(response);
      else response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      for (const wake of waiters) wake();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    connections: () => connections,
    answer(next) {
      status = next;
    },
    hold(at) {
      held.set(at, []);
      return {
        release() {
          for (const response of held.get(at) ?? []) response.destroy();
          held.delete(at);
        },
      };
    },
    waitFor(path, match = () => true, timeoutMs = 30_000) {
      const find = () => received.find((delivery) => delivery.path === path && match(delivery));
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = find();
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no delivery to ${path} within ${timeoutMs} ms (got ${received.map((delivery) => `${delivery.path} ${String(delivery.headers['x-gitea-event-type'])}`).join(', ')})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Gitea's X-Gitea-Signature: hex HMAC-SHA256 of the body with the hook's secret. */
export function giteaSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}
