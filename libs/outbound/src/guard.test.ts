/**
 * The guard against real loopback listeners that count their connections: a refused target is never connected to
 * — by address literal, by a name that resolves to it (at connect time: the resolver answers what it answers then),
 * or as a redirect's target — and an allowed one is called, redirects followed as Go's http.Client follows them.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseHostMatchList } from './host-match';
import { type OutboundPolicy, OutboundRefusedError, type Resolver, outboundRequest, outboundStream } from './guard';

interface Listener {
  port: number;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

async function listen(host: string, handler: http.RequestListener = (_req, res) => res.end('ok')): Promise<Listener> {
  const server = http.createServer((req, res) => {
    listener.requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  const listener: Listener = {
    port: 0,
    connections: 0,
    requests: [],
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server.on('connection', () => void listener.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

const policy = (allow: string[], block: string[] = []): OutboundPolicy => ({
  usage: 'webhook',
  allow: parseHostMatchList('webhook.ALLOWED_HOST_LIST', allow),
  block: parseHostMatchList('migrations.BLOCKED_DOMAINS', block),
});
const EXTERNAL = policy(['external']);
/** A resolver that answers what a hostile DNS server would: the loopback address for every name. */
const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

describe('outboundRequest', () => {
  let target: Listener;
  beforeEach(async () => {
    target = await listen('127.0.0.1');
  });
  afterEach(async () => {
    await target.close();
  });

  it.each([
    ['an address literal', (port: number) => `http://127.0.0.1:${port}/hook`],
    ['a mapped IPv6 literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ['localhost', (port: number) => `http://localhost:${port}/hook`],
  ])('never connects to a loopback target under the default policy (%s)', async (_what, url) => {
    await expect(outboundRequest(EXTERNAL, url(target.port), { method: 'POST', body: '{}', timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(target.connections).toBe(0);
  });

  it('checks the address a name resolves to when it connects (DNS rebinding), with Gitea’s message', async () => {
    const refused = outboundRequest(EXTERNAL, `http://hooks.example.net:${target.port}/`, { timeoutMs: 5000, resolver: rebinding });
    await expect(refused).rejects.toThrow(
      "webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting), deny 'hooks.example.net(127.0.0.1)'",
    );
    expect(target.connections).toBe(0);
  });

  it('calls an allowed target and answers its status, headers and body', async () => {
    const answer = await outboundRequest(policy(['loopback']), `http://127.0.0.1:${target.port}/hook`, { method: 'POST', body: '{}', timeoutMs: 5000 });
    expect(answer).toMatchObject({ status: 200, url: `http://127.0.0.1:${target.port}/hook` });
    expect(answer.body.toString()).toBe('ok');
    expect(target.requests).toEqual(['POST /hook']);
  });

  it('lets a listed name through whatever it resolves to (Gitea’s MatchHostOrIP), and a block list win', async () => {
    const named = policy(['hooks.example.net']);
    expect((await outboundRequest(named, `http://hooks.example.net:${target.port}/`, { timeoutMs: 5000, resolver: rebinding })).status).toBe(200);
    const blocked = policy(['*'], ['127.0.0.0/8']);
    await expect(outboundRequest(blocked, `http://127.0.0.1:${target.port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(target.connections).toBe(1);
  });

  it('checks every redirect’s target again, never connecting to a refused one', async () => {
    const other = await listen('127.0.0.2');
    const redirecting = await listen('127.0.0.1', (_req, res) => res.writeHead(302, { location: `http://127.0.0.2:${other.port}/inside` }).end());
    try {
      await expect(outboundRequest(policy(['127.0.0.1/32']), `http://127.0.0.1:${redirecting.port}/`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
      expect(redirecting.requests).toEqual(['GET /']);
      expect(other.connections).toBe(0);
    } finally {
      await other.close();
      await redirecting.close();
    }
  });

  it('follows allowed redirects as Go does: a POST becomes a GET on 302, keeps its method on 307; at most maxRedirects', async () => {
    const hops = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/302') res.writeHead(302, { location: '/end' }).end();
      else if (req.url === '/307') res.writeHead(307, { location: '/end' }).end();
      else if (req.url === '/loop') res.writeHead(301, { location: '/loop' }).end();
      else res.end(req.method);
    });
    try {
      const loopback = policy(['loopback']);
      const base = `http://127.0.0.1:${hops.port}`;
      expect((await outboundRequest(loopback, `${base}/302`, { method: 'POST', body: 'x', timeoutMs: 5000 })).body.toString()).toBe('GET');
      expect((await outboundRequest(loopback, `${base}/307`, { method: 'POST', body: 'x', timeoutMs: 5000 })).body.toString()).toBe('POST');
      await expect(outboundRequest(loopback, `${base}/loop`, { timeoutMs: 5000, maxRedirects: 3 })).rejects.toThrow('stopped after 3 redirects');
    } finally {
      await hops.close();
    }
  });

  it('sends credentials to the host they were given for only: a redirect to another host goes without them', async () => {
    const seen: Record<string, string | undefined> = {};
    const other = await listen('127.0.0.1', (req, res) => {
      seen.other = req.headers.authorization;
      seen.otherToken = req.headers['private-token'] as string | undefined;
      res.end('moved');
    });
    const first = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/same') {
        res.writeHead(302, { location: '/there' }).end();
        return;
      }
      if (req.url === '/there') {
        seen.same = req.headers.authorization;
        seen.sameToken = req.headers['private-token'] as string | undefined;
        res.end('same');
        return;
      }
      // Another port is another host (Go compares host:port too).
      res.writeHead(302, { location: `http://127.0.0.1:${other.port}/asset` }).end();
    });
    try {
      const loopback = policy(['loopback']);
      // GitLab's PRIVATE-TOKEN is a credential too.
      const headers = { authorization: 'token secret', 'PRIVATE-TOKEN': 'glpat-secret', accept: 'application/json' };
      await outboundRequest(loopback, `http://127.0.0.1:${first.port}/same`, { headers, timeoutMs: 5000 });
      expect([seen.same, seen.sameToken]).toEqual(['token secret', 'glpat-secret']);
      expect((await outboundRequest(loopback, `http://127.0.0.1:${first.port}/away`, { headers, timeoutMs: 5000 })).body.toString()).toBe('moved');
      expect([seen.other, seen.otherToken]).toEqual([undefined, undefined]);
    } finally {
      await first.close();
      await other.close();
    }
  });

  it('streams a large body unbuffered through the same guard (outboundStream)', async () => {
    const size = 3 << 20;
    const big = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: '/big' }).end();
      else res.end(Buffer.alloc(size, 7));
    });
    try {
      const answer = await outboundStream(policy(['loopback']), `http://127.0.0.1:${big.port}/redirect`, { timeoutMs: 5000 });
      expect(answer.status).toBe(200);
      let length = 0;
      for await (const chunk of answer.body) length += (chunk as Buffer).length;
      // outboundRequest would have cut it at 1 MiB.
      expect(length).toBe(size);
      await expect(outboundStream(EXTERNAL, `http://127.0.0.1:${big.port}/big`, { timeoutMs: 5000 })).rejects.toBeInstanceOf(OutboundRefusedError);
    } finally {
      await big.close();
    }
  });

  it('calls only http and https', async () => {
    await expect(outboundRequest(policy(['*']), 'file:///etc/passwd', { timeoutMs: 5000 })).rejects.toThrow('only http and https');
  });
});
