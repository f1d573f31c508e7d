/** createSourceClient's rate-limit waits when requests are made at once (a page's reactions): one wait, shared. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrationPolicy } from '@cairn/outbound';
import { createSourceClient } from './source-http';

const policy = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });

/** A sleep the test ends: each call is recorded and waits until released. */
function controlledSleep() {
  const calls: number[] = [];
  const releases: (() => void)[] = [];
  let called: () => void = () => undefined;
  let nextCall = new Promise<void>((resolve) => (called = resolve));
  return {
    calls,
    sleep: (ms: number): Promise<void> => {
      calls.push(ms);
      called();
      nextCall = new Promise<void>((resolve) => (called = resolve));
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    /** Resolves once sleep has been called (again). */
    called: () => nextCall,
    releaseAll: () => releases.splice(0).forEach((release) => release()),
  };
}

describe('createSourceClient rate-limit waits', () => {
  let server: http.Server;
  let base = '';
  /** Paths asked, in order; each path's first answer is what `first` says, later ones 200. */
  const asked: string[] = [];
  type Answer = { status: number; headers: Record<string, string> };
  let first: (path: string) => Answer = () => ({ status: 200, headers: {} });

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const path = request.url ?? '';
      const again = asked.includes(path);
      asked.push(path);
      const answer = again ? { status: 200, headers: {} } : first(path);
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.status === 200 ? { path } : { message: 'slow down' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    asked.length = 0;
  });

  it('holds requests made during a Retry-After wait, and waits once for all of them', async () => {
    first = (path): Answer => (path === '/limited' ? { status: 429, headers: { 'retry-after': '7' } } : { status: 200, headers: {} });
    const timer = controlledSleep();
    const client = createSourceClient({ policy, headers: {}, sleep: timer.sleep });
    const called = timer.called();
    const limited = client.getJson(`${base}/limited`, 'GET /limited');
    await called;
    // Made while the source asked to wait: they wait with the refused request instead of going out.
    const others = [1, 2, 3].map((n) => client.getJson(`${base}/item/${n}`, `GET /item/${n}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(['/limited']);
    timer.releaseAll();
    const answers = await Promise.all([limited, ...others]);
    expect(answers.map((answer) => answer.json)).toEqual([{ path: '/limited' }, { path: '/item/1' }, { path: '/item/2' }, { path: '/item/3' }]);
    expect(timer.calls).toHaveLength(1);
    expect(timer.calls[0]).toBeGreaterThan(6000);
    expect(timer.calls[0]).toBeLessThanOrEqual(7000);
    expect(asked.slice(0, 2)).toEqual(['/limited', '/limited']);
    expect(asked.slice(2).sort()).toEqual(['/item/1', '/item/2', '/item/3']);
  });

  it('waits once for requests made at once after an answer used the quota up', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 30;
    first = (path): Answer => (path === '/spent' ? { status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } } : { status: 200, headers: {} });
    const timer = controlledSleep();
    const client = createSourceClient({ policy, headers: {}, sleep: timer.sleep });
    await client.getJson(`${base}/spent`, 'GET /spent');
    const called = timer.called();
    const batch = [1, 2, 3, 4].map((n) => client.getJson(`${base}/item/${n}`, `GET /item/${n}`));
    await called;
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(['/spent']);
    timer.releaseAll();
    await Promise.all(batch);
    expect(timer.calls).toHaveLength(1);
    expect(asked.slice(1).sort()).toEqual(['/item/1', '/item/2', '/item/3', '/item/4']);
    // Waited out: the next request goes at once.
    await client.getJson(`${base}/after`, 'GET /after');
    expect(timer.calls).toHaveLength(1);
  });
});
