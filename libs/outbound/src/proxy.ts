/**
 * A forward proxy for programs Cairn runs that make their own connections (git's libcurl for migrations and
 * mirrors): the program is pointed at it (`http.proxy`) and every upstream connection it asks for — `CONNECT
 * host:port` for https, an absolute-URI request (`GET http://host/path`) for plain http — is opened with
 * `outboundConnect`, so the one guard checks the address actually connected to, redirects included (each is a new
 * request through the proxy). A refused target is answered 403 and never contacted. The proxy listens on
 * 127.0.0.1 only and takes requests only with its own random token (Proxy-Authorization), so no other local
 * process can use it as an open proxy. Start one per use and close it after.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { outboundConnect } from './connect';
import { type OutboundPolicy, OutboundRefusedError, type Resolver } from './guard';

export interface OutboundProxyOptions {
  /** Until each upstream connection is established. */
  connectTimeoutMs: number;
  resolver?: Resolver;
}

export interface OutboundProxy {
  /** `http://cairn:<token>@127.0.0.1:<port>`: the proxy URL to give the program (with its credentials). */
  url: string;
  /** The guard's refusals so far (a program reports them only as a proxy's 403). */
  readonly refusals: readonly OutboundRefusedError[];
  /** Stops listening and cuts every connection still open. */
  close(): Promise<void>;
}

const PROXY_USER = 'cairn';

/** Hop-by-hop headers a proxy does not forward (RFC 9110 §7.6.1), and the proxy's own credentials. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (match === null) return false;
  const given = Buffer.from(match[1], 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `host:port` of a CONNECT request; undefined when malformed. */
function connectTarget(target: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(target ?? '');
  if (match === null) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1], port } : undefined;
}

function refuseSocket(socket: Duplex, status: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}

export async function startOutboundProxy(policy: OutboundPolicy, options: OutboundProxyOptions): Promise<OutboundProxy> {
  const token = randomBytes(24).toString('hex');
  const expected = Buffer.from(`${PROXY_USER}:${token}`);
  const refusals: OutboundRefusedError[] = [];
  const sockets = new Set<Socket>();
  const challenge = 'Proxy-Authenticate: Basic realm="cairn"\r\n';

  const connect = (host: string, port: number): Promise<Socket> =>
    outboundConnect(policy, { host, port, timeoutMs: options.connectTimeoutMs, resolver: options.resolver }).then(
      (socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        return socket;
      },
      (error: unknown) => {
        if (error instanceof OutboundRefusedError) refusals.push(error);
        throw error;
      },
    );

  const statusOf = (error: unknown) => (error instanceof OutboundRefusedError ? '403 Forbidden' : '502 Bad Gateway');

  const server = http.createServer((req, res) => {
    if (!authorized(req.headers['proxy-authorization'], expected)) {
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="cairn"', 'Content-Length': 0, Connection: 'close' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'Content-Length': 0, Connection: 'close' }).end();
      return;
    }
    // Only plain http is forwarded as a request; https goes through CONNECT (the program does its own TLS).
    if (target.protocol !== 'http:' || target.username !== '' || target.password !== '') {
      res.writeHead(400, { 'Content-Length': 0, Connection: 'close' }).end();
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    connect(target.hostname, Number(target.port || 80)).then(
      (socket) => {
        const upstream = http.request(
          { method: req.method, path: `${target.pathname}${target.search}`, headers, createConnection: () => socket },
          (response) => {
            const back: http.OutgoingHttpHeaders = {};
            for (const [name, value] of Object.entries(response.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
            res.writeHead(response.statusCode ?? 502, back);
            response.pipe(res);
            response.once('error', () => res.destroy());
          },
        );
        upstream.once('error', () => (res.headersSent ? res.destroy() : res.writeHead(502, { 'Content-Length': 0 }).end()));
        res.once('close', () => upstream.destroy());
        req.pipe(upstream);
      },
      (error: unknown) => {
        req.resume();
        res.writeHead(Number(statusOf(error).slice(0, 3)), { 'Content-Length': 0, Connection: 'close' }).end();
      },
    );
  });

  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    if (!authorized(req.headers['proxy-authorization'], expected)) {
      refuseSocket(client, '407 Proxy Authentication Required', challenge);
      return;
    }
    const target = connectTarget(req.url);
    if (target === undefined) {
      refuseSocket(client, '400 Bad Request');
      return;
    }
    connect(target.host, target.port).then(
      (upstream) => {
        upstream.on('error', () => client.destroy());
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      },
      (error: unknown) => refuseSocket(client, statusOf(error)),
    );
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${PROXY_USER}:${token}@127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
