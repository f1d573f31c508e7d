import { GRPC_SERVICES, encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { createRpcServer } from '@cairn/rpc';
import { start } from '../src';
import { HEALTH_CONTENT_TYPE, type DependencyCheck, type HealthReport } from '../src/health/healthz';
import { testConfig } from './support/config';
import { FakeBroadcastBus } from './support/fake-bus';
import { startGrpcAccounts } from './support/grpc-accounts';
import { basic, startTestGateway, type TestGateway } from './support/harness';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function fakeCheck(name: string, healthy: { value: boolean }): DependencyCheck {
  return { name, check: async () => (healthy.value ? { serving: true } : { serving: false, reason: 'UNAVAILABLE: connection refused' }) };
}

describe('GET /api/healthz', () => {
  const accounts = { value: true };
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      // Sign-in required everywhere: probes still need no credentials.
      env: { CAIRN__service__REQUIRE_SIGNIN_VIEW: 'true', CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true' },
      healthChecks: [fakeCheck('accounts:grpc', accounts)],
    });
  });
  afterAll(() => gw.close());

  it('answers 200 pass, Gitea-shaped, anonymously, when every service is serving', async () => {
    accounts.value = true;
    const res = await gw.fetch('/api/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(HEALTH_CONTENT_TYPE);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const body = JSON.parse(text) as HealthReport;
    expect(body).toEqual({ status: 'pass', description: 'Cairn', checks: { 'accounts:grpc': [{ status: 'pass', time: expect.stringMatching(RFC3339) }] } });
    // Indented like Gitea's json.MarshalIndent.
    expect(text.startsWith('{\n  "status": "pass",\n  "description": "Cairn",')).toBe(true);
    // The API itself turns anonymous callers away here.
    expect([401, 403]).toContain((await gw.fetch('/api/v1/users/anyone')).status);
  });

  it('answers 503 fail naming the failing check and why when a service is not serving', async () => {
    accounts.value = false;
    try {
      const res = await gw.fetch('/api/healthz');
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe(HEALTH_CONTENT_TYPE);
      expect(await res.json()).toEqual({
        status: 'fail',
        description: 'Cairn',
        checks: { 'accounts:grpc': [{ status: 'fail', time: expect.stringMatching(RFC3339), output: 'accounts:grpc is not serving: UNAVAILABLE: connection refused' }] },
      });
    } finally {
      accounts.value = true;
    }
  });

  it('ignores credentials, even wrong ones', async () => {
    const res = await gw.fetch('/api/healthz', { headers: { Authorization: basic('nobody', 'wrong') } });
    expect(res.status).toBe(200);
    expect((await gw.fetch('/api/healthz?token=bad')).status).toBe(200);
  });

  it('is not part of the API description', async () => {
    const text = await (await gw.fetch('/swagger.v1.json')).text();
    expect(text).not.toContain('healthz');
  });

  it('describes itself with APP_NAME and passes with nothing to check', async () => {
    const bare = await startTestGateway({ env: { CAIRN__DEFAULT__APP_NAME: 'Forge' } });
    try {
      expect(await (await bare.fetch('/api/healthz')).json()).toEqual({ status: 'pass', description: 'Forge' });
    } finally {
      await bare.close();
    }
  });
});

describe('GET /api/healthz of a started gateway', () => {
  it('checks every gRPC service over the gRPC health service', async () => {
    const accounts = await startGrpcAccounts();
    // Every other service serving (the health service alone answers for it), so only accounts' health changes the answer.
    const others = GRPC_SERVICES.filter((name) => name !== 'accounts').map((name) => ({ name, server: createRpcServer({ service: name, logger: silentLogger() }) }));
    const env: Record<string, string> = { [encodeEnvKey('services.accounts', 'ADDR')]: accounts.addr };
    for (const { name, server } of others) {
      env[encodeEnvKey(`services.${name}`, 'ADDR')] = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
      server.setServing(true);
    }
    const config = testConfig(env);
    const service = await start({ config, logger: silentLogger(), bus: new FakeBroadcastBus(), listen: '127.0.0.1:0' });
    const healthz = `http://127.0.0.1:${service.port}/api/healthz`;
    try {
      const pass = await fetch(healthz);
      expect(pass.status).toBe(200);
      const body = (await pass.json()) as HealthReport;
      expect(Object.keys(body.checks ?? {}).sort()).toEqual(GRPC_SERVICES.map((name) => `${name}:grpc`).sort());

      accounts.server.setServing(false);
      const fail = await fetch(healthz);
      expect(fail.status).toBe(503);
      expect(((await fail.json()) as HealthReport).checks?.['accounts:grpc']?.[0]).toMatchObject({
        status: 'fail',
        output: 'accounts:grpc is not serving: reports NOT_SERVING',
      });

      accounts.server.setServing(true);
      expect((await fetch(healthz)).status).toBe(200);

      // A service that is gone: the reason is gRPC's.
      await accounts.server.stop(0);
      const gone = await fetch(healthz);
      expect(gone.status).toBe(503);
      expect(((await gone.json()) as HealthReport).checks?.['accounts:grpc']?.[0]?.output).toMatch(/^accounts:grpc is not serving: UNAVAILABLE: ./);
    } finally {
      await service.stop();
      await accounts.server.stop(0);
      for (const { server } of others) await server.stop(0);
    }
  });
});
