import { silentLogger } from '@cairn/log';
import { httpRouteRecorder } from './recorders';
import { type MetricsServer, startMetricsServer } from './server';

describe('metrics server', () => {
  const servers: MetricsServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  async function serve(token?: string): Promise<MetricsServer> {
    const server = await startMetricsServer({ listen: '127.0.0.1:0', token, logger: silentLogger() });
    servers.push(server);
    return server;
  }

  it('serves the registry in the Prometheus text format at /metrics', async () => {
    httpRouteRecorder('/api/v1/version').record('GET', 200, 0.003);
    const server = await serve();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('# TYPE cairn_http_requests_total counter');
    expect(text).toContain('cairn_http_requests_total{method="GET",route="/api/v1/version",status="200"} 1');
    expect(text).toContain('cairn_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v1/version",status="200"} 1');
    // Node.js process metrics, under the same prefix.
    expect(text).toMatch(/^cairn_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^cairn_nodejs_eventloop_lag_seconds /m);
  });

  it('answers 404 for any other path and 405 for another method', async () => {
    const server = await serve();
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${base}/metrics?name[]=x`)).status).toBe(200);
  });

  it('requires Authorization: Bearer <token> when a token is set', async () => {
    const server = await serve('s3cret');
    const missing = await fetch(server.url);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await missing.text()).not.toContain('cairn_');
    for (const authorization of ['Bearer wrong', 'bearer s3cret', 's3cret', 'Basic czNjcmV0']) {
      expect((await fetch(server.url, { headers: { authorization } })).status).toBe(401);
    }
    const ok = await fetch(server.url, { headers: { authorization: 'Bearer s3cret' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('cairn_process_cpu_user_seconds_total');
    // The 404 does not depend on the token.
    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
  });

  it('stops listening on stop(), also with a keep-alive connection open', async () => {
    const server = await serve();
    expect((await fetch(server.url, { keepalive: true })).status).toBe(200);
    await Promise.all([server.stop(), server.stop()]);
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('refuses an address it cannot parse and one that is taken', async () => {
    await expect(startMetricsServer({ listen: '9464', logger: silentLogger() })).rejects.toThrow(/invalid metrics listen address "9464"/);
    const first = await serve();
    await expect(startMetricsServer({ listen: `127.0.0.1:${first.port}`, logger: silentLogger() })).rejects.toThrow(/EADDRINUSE/);
  });

  it('gives a dialable URL for a wildcard address', async () => {
    const server = await startMetricsServer({ listen: '0.0.0.0:0', logger: silentLogger() });
    servers.push(server);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    expect((await fetch(server.url)).status).toBe(200);
  });
});
