/**
 * Metrics and health of the running system: with `[metrics] ENABLED` the supervisor's single process serves
 * one `/metrics` (in-process bus), and with NATS every service process serves its own, as the runtime file
 * says; `/api/healthz` answers 200; SIGTERM still stops everything cleanly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTestDatabase, testNatsUrl, type TestDatabase, uniqueName } from '@cairn/testing';
import { ROOT, baseEnv, basicAuth, cleanUpWorkDir, freePort, makeWorkDir, readRuntime, startInstance, type Instance } from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(180_000);

/** Every deployed service: a directory under services/ but the supervisor and the CLI (as the deploy tests count them). */
const SERVICES = fs
  .readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['supervisor', 'cli'].includes(entry.name))
  .map((entry) => entry.name)
  .sort();

function metricsUrls(workDir: string): Record<string, string | undefined> {
  const services = (readRuntime(workDir)?.services ?? {}) as Record<string, { metricsUrl?: string }>;
  return Object.fromEntries(SERVICES.map((name) => [name, services[name]?.metricsUrl]));
}

async function scrape(url: string, token?: string): Promise<string> {
  const response = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** Exercises the gateway and, through it, accounts: a plain request and one that makes an RPC. */
async function traffic(instance: Instance): Promise<void> {
  expect((await fetch(`${instance.httpUrl}/api/v1/version`)).status).toBe(200);
  expect((await fetch(`${instance.httpUrl}/api/v1/user`, { headers: basicAuth('nobody', 'wrong-password') })).status).toBe(401);
}

async function expectHealthy(instance: Instance): Promise<void> {
  const response = await fetch(`${instance.httpUrl}/api/healthz`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/health+json');
  expect(await response.json()).toMatchObject({ status: 'pass', checks: { 'accounts:grpc': [{ status: 'pass' }] } });
}

const HTTP_VERSION_SERIES = 'cairn_http_requests_total{method="GET",route="/api/v1/version",status="200"}';

/** How many times /api/healthz answered 200, as a scrape counts them. */
function healthzCount(text: string): number {
  const match = /^cairn_http_requests_total\{method="GET",route="\/api\/healthz",status="200"\} (\d+)$/m.exec(text);
  return match === null ? 0 : Number(match[1]);
}

describe('metrics with every service in the supervisor process', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let metricsPort: number;
  const token = 'scrape-token';

  beforeAll(async () => {
    database = await createTestDatabase('e2e_metrics_single');
    workDir = makeWorkDir();
    metricsPort = await freePort();
    instance = await startInstance(
      workDir,
      baseEnv(workDir, {
        CAIRN__database__URL: database.url,
        CAIRN__server__HTTP_PORT: '0',
        CAIRN__metrics__ENABLED: 'true',
        CAIRN__metrics__LISTEN: `127.0.0.1:${metricsPort}`,
        CAIRN__metrics__TOKEN: token,
      }),
    );
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  it('serves one /metrics for the whole process, behind the token, with every kind of metric', async () => {
    expect(instance.runtime.mode).toBe('single-process');
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    expect(metricsUrls(workDir)).toEqual(Object.fromEntries(SERVICES.map((name) => [name, url])));
    await traffic(instance);
    // The supervisor's readiness probe asked /api/healthz already: the test's own request counts one more.
    const healthzBefore = healthzCount(await scrape(url, token));
    await expectHealthy(instance);

    expect((await fetch(url)).status).toBe(401);
    const text = await scrape(url, token);
    expect(text).toContain(HTTP_VERSION_SERIES);
    expect(healthzCount(text)).toBe(healthzBefore + 1);
    expect(text).toMatch(/^cairn_rpc_server_handled_total\{grpc_service="cairn\.accounts\.v1\.UserService",grpc_method="AuthenticatePassword",grpc_code="[A-Z_]+"\} 1$/m);
    expect(text).toMatch(/^cairn_rpc_client_handled_total\{grpc_service="cairn\.accounts\.v1\.UserService",grpc_method="AuthenticatePassword",/m);
    expect(text).toContain('cairn_rpc_client_breaker_state{client="cairn.accounts.v1.UserService"} 0');
    expect(text).toMatch(/^cairn_outbox_pending_events\{schema="accounts"\} \d+$/m);
    expect(text).toMatch(/^cairn_outbox_lag_seconds\{schema="accounts"\} /m);
    expect(text).toMatch(/^cairn_process_cpu_user_seconds_total /m);
  });

  it('stops the metrics server with the rest on SIGTERM', async () => {
    expect(await instance.stop()).toEqual({ code: 0, signal: null });
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});

describe('metrics with every service in its own process (NATS)', () => {
  // A `[bus] PREFIX` of its own on the machine's NATS, its streams deleted afterwards.
  const prefix = uniqueName('e2emetrics');
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_metrics_children');
    workDir = makeWorkDir();
    instance = await startInstance(
      workDir,
      baseEnv(workDir, {
        CAIRN__database__URL: database.url,
        CAIRN__bus__URL: testNatsUrl(),
        CAIRN__bus__PREFIX: prefix,
        CAIRN__server__HTTP_PORT: '0',
        CAIRN__metrics__ENABLED: 'true',
      }),
    );
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
    await deleteStreamsOf([prefix]);
  });

  it('gives every service process a metrics port of its own, recorded in the runtime file', async () => {
    expect(instance.runtime.mode).toBe('processes');
    const urls = metricsUrls(workDir);
    for (const name of SERVICES) expect(urls[name]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new Set(Object.values(urls)).size).toBe(SERVICES.length);
    for (const name of SERVICES) expect(await scrape(urls[name]!)).toMatch(/^cairn_process_cpu_user_seconds_total /m);
  });

  it('counts each service’s own work in its own process', async () => {
    await traffic(instance);
    await expectHealthy(instance);
    const urls = metricsUrls(workDir);
    const gateway = await scrape(urls.gateway!);
    expect(gateway).toContain(HTTP_VERSION_SERIES);
    expect(gateway).toMatch(/^cairn_rpc_client_handled_total\{grpc_service="cairn\.accounts\.v1\.UserService",grpc_method="AuthenticatePassword",/m);
    expect(gateway).not.toContain('cairn_rpc_server_handled_total{');
    const accounts = await scrape(urls.accounts!);
    expect(accounts).toMatch(/^cairn_rpc_server_handled_total\{grpc_service="cairn\.accounts\.v1\.UserService",grpc_method="AuthenticatePassword",/m);
    expect(accounts).toMatch(/^cairn_outbox_pending_events\{schema="accounts"\} \d+$/m);
    expect(accounts).not.toContain('cairn_http_requests_total{');
  });

  it('stops every service and its metrics server on SIGTERM', async () => {
    const urls = Object.values(metricsUrls(workDir));
    expect(await instance.stop()).toEqual({ code: 0, signal: null });
    for (const url of urls) await expect(fetch(url!)).rejects.toThrow();
  });
});
