/**
 * The guarded forward proxy against a real loopback HTTP server that counts connections: CONNECT and absolute-URI
 * requests reach an allowed target, a refused one is answered 403 and never connected to, and nothing goes through
 * without the proxy's token.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { migrationPolicy } from './migrations';
import { type OutboundProxy, startOutboundProxy } from './proxy';

let upstream: http.Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  upstream = http.createServer((req, res) => res.end(`hello ${req.url ?? ''}`));
  upstream.on('connection', () => connections++);
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const allowingLoopback = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });
const strict = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: false });

async function withProxy(policy: typeof strict, use: (proxy: OutboundProxy, address: URL) => Promise<void>): Promise<void> {
  const proxy = await startOutboundProxy(policy, { connectTimeoutMs: 5_000 });
  try {
    await use(proxy, new URL(proxy.url));
  } finally {
    await proxy.close();
  }
}

const credentials = (address: URL) => `Basic ${Buffer.from(`${address.username}:${address.password}`).toString('base64')}`;

/** An absolute-URI GET through the proxy: status and body. */
function get(address: URL, target: string, authorization?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = authorization === undefined ? {} : { 'Proxy-Authorization': authorization };
    const request = http.request({ host: address.hostname, port: Number(address.port), path: target, headers, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A CONNECT through the proxy: its status line, and on success the tunnel's answer to a GET. */
function tunnel(address: URL, target: string, authorization?: string): Promise<{ statusLine: string; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(address.port), address.hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0 && received.startsWith('HTTP/1.1 200') && !received.includes('hello')) {
        if (received.length === end + 4) socket.write(`GET /tunnelled HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ statusLine: received.slice(0, received.indexOf('\r\n')), answer: received }));
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${authorization === undefined ? '' : `Proxy-Authorization: ${authorization}\r\n`}\r\n`);
  });
}

it('forwards absolute-URI requests and CONNECT tunnels to an allowed target', async () => {
  await withProxy(allowingLoopback, async (proxy, address) => {
    const before = connections;
    expect(await get(address, `http://127.0.0.1:${port}/plain?x=1`, credentials(address))).toEqual({ status: 200, body: 'hello /plain?x=1' });
    const connected = await tunnel(address, `127.0.0.1:${port}`, credentials(address));
    expect(connected.statusLine).toBe('HTTP/1.1 200 Connection Established');
    expect(connected.answer).toContain('hello /tunnelled');
    expect(connections).toBe(before + 2);
    expect(proxy.refusals).toEqual([]);
  });
});

it('answers 403 for a refused target and never connects to it', async () => {
  await withProxy(strict, async (proxy, address) => {
    const before = connections;
    expect((await get(address, `http://127.0.0.1:${port}/`, credentials(address))).status).toBe(403);
    expect((await tunnel(address, `localhost:${port}`, credentials(address))).statusLine).toBe('HTTP/1.1 403 Forbidden');
    expect(connections).toBe(before);
    expect(proxy.refusals).toHaveLength(2);
  });
});

it('answers 407 without its token, so it is no open proxy for other local processes', async () => {
  await withProxy(allowingLoopback, async (_proxy, address) => {
    const before = connections;
    const wrong = `Basic ${Buffer.from('cairn:guess').toString('base64')}`;
    expect((await get(address, `http://127.0.0.1:${port}/`)).status).toBe(407);
    expect((await get(address, `http://127.0.0.1:${port}/`, wrong)).status).toBe(407);
    expect((await tunnel(address, `127.0.0.1:${port}`)).statusLine).toBe('HTTP/1.1 407 Proxy Authentication Required');
    expect((await tunnel(address, `127.0.0.1:${port}`, wrong)).statusLine).toBe('HTTP/1.1 407 Proxy Authentication Required');
    expect(connections).toBe(before);
    expect(address.hostname).toBe('127.0.0.1');
  });
});

it('forwards only plain http requests (https goes through CONNECT)', async () => {
  await withProxy(allowingLoopback, async (_proxy, address) => {
    const before = connections;
    expect((await get(address, `https://127.0.0.1:${port}/`, credentials(address))).status).toBe(400);
    expect((await get(address, `/relative`, credentials(address))).status).toBe(400);
    expect(connections).toBe(before);
  });
});
