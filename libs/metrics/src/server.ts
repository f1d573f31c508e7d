/**
 * The metrics endpoint of a process: `GET /metrics` on its own port (`[metrics] LISTEN`), the Prometheus
 * text format of the process registry. With `[metrics] TOKEN` set, a scrape must send
 * `Authorization: Bearer <TOKEN>`, as Gitea asks; anything else on the port is a 404.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@cairn/log';
import { metricsRegistry } from './registry';

export const METRICS_PATH = '/metrics';

export interface MetricsServerOptions {
  /** `host:port` (IPv6 in brackets); port 0 picks a free one. */
  listen: string;
  /** Bearer token scrapes must present; empty or absent: none needed. */
  token?: string;
  logger: Logger;
}

export interface MetricsServer {
  /** The bound port. */
  port: number;
  /** Where to scrape it from this machine, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  stop(): Promise<void>;
}

/** `host:port` → host (brackets removed) and port. */
function parseListen(listen: string): { host: string; port: number } {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:\s]+):(\d{1,5})$/.exec(listen.trim());
  const port = Number(match?.[2]);
  if (match === null || port > 65535) throw new Error(`invalid metrics listen address "${listen}": expected host:port`);
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}

/** A wildcard bind address is not one to dial: use the loopback of the same family. */
function dialableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Compares in constant time (hashing first makes the lengths equal). */
function authorized(header: string | undefined, expected: Buffer | undefined): boolean {
  if (expected === undefined) return true;
  return header !== undefined && timingSafeEqual(digest(header), expected);
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { logger } = options;
  const { host, port } = parseListen(options.listen);
  const token = options.token ?? '';
  const expected = token === '' ? undefined : digest(`Bearer ${token}`);
  const registry = metricsRegistry();

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    if (!authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Content-Type': 'text/plain; charset=utf-8' }).end('\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('collecting metrics failed\n');
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${dialableHost(host)}:${bound}${METRICS_PATH}`;
  logger.info({ listen: options.listen, port: bound, token_required: expected !== undefined }, 'metrics server listening');

  let stopping: Promise<void> | undefined;
  return {
    port: bound,
    url,
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        // Scrapes are short and nothing depends on one finishing: close every connection now.
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
