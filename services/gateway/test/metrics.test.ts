import { METRIC_NAMES, metricValue, metricsRegistry } from '@cairn/metrics';
import { basic, startTestGateway, type TestGateway } from './support/harness';

const requests = (labels: Record<string, string>) => metricValue(METRIC_NAMES.httpRequests, labels);

describe('HTTP metrics', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
    gw.accounts.addUser('alice', { password: 'alice-pass-1' });
  });
  afterAll(() => gw.close());

  /** Requests are recorded when their response closes, just after the client has the answer. */
  async function settled(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('labels a request with its route template, never its raw path', async () => {
    expect((await gw.fetch('/api/v1/users/alice/tokens', { headers: { Authorization: basic('alice', 'alice-pass-1') } })).status).toBe(200);
    const labels = { method: 'GET', route: '/api/v1/users/{username}/tokens', status: '200' };
    await settled(async () => (await requests(labels)) === 1);
    expect(await requests(labels)).toBe(1);
    expect(await metricValue(`${METRIC_NAMES.httpDuration}_count`, labels)).toBe(1);
    expect(await metricsRegistry().metrics()).not.toMatch(/route="[^"]*alice/);
  });

  it('labels a path two templates match with the route that answered it', async () => {
    // /users/search also fits /users/{username}, registered after it.
    expect((await gw.fetch('/api/v1/users/search?q=ali')).status).toBe(200);
    await settled(async () => (await requests({ route: '/api/v1/users/search', status: '200' })) === 1);
    expect(await requests({ method: 'GET', route: '/api/v1/users/search', status: '200' })).toBe(1);
    expect(await requests({ route: '/api/v1/users/{username}' })).toBeUndefined();
  });

  it('counts a request turned away before its handler under its route', async () => {
    expect((await gw.fetch('/api/v1/user')).status).toBe(401);
    expect((await gw.fetch('/api/v1/user', { headers: { Authorization: basic('alice', 'wrong') } })).status).toBe(401);
    const labels = { method: 'GET', route: '/api/v1/user', status: '401' };
    await settled(async () => (await requests(labels)) === 2);
    expect(await requests(labels)).toBe(2);
  });

  it('counts unknown paths as unmatched, and a known path with another method under its route', async () => {
    expect((await gw.fetch('/api/v1/no/such/thing')).status).toBe(404);
    expect((await gw.fetch('/favicon.ico')).status).toBe(404);
    await settled(async () => (await requests({ route: 'unmatched', status: '404' })) === 2);
    expect(await requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(2);

    expect((await gw.fetch('/api/v1/version', { method: 'DELETE' })).status).toBe(405);
    await settled(async () => (await requests({ route: '/api/v1/version', status: '405' })) === 1);
    expect(await requests({ method: 'DELETE', route: '/api/v1/version', status: '405' })).toBe(1);
  });

  it('labels the routes outside the API with their paths', async () => {
    await gw.fetch('/api/healthz');
    await gw.fetch('/swagger.v1.json');
    await settled(async () => (await requests({ route: '/swagger.v1.json' })) === 1);
    expect(await requests({ method: 'GET', route: '/api/healthz', status: '200' })).toBe(1);
    expect(await requests({ method: 'GET', route: '/swagger.v1.json', status: '200' })).toBe(1);
  });
});
