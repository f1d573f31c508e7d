/**
 * `npm start` is ready whatever the settings: with `[service] REQUIRE_SIGNIN_VIEW = true` the gateway answers anonymous
 * callers of `GET /api/v1/version` 403 (as Gitea), so the supervisor's readiness is `GET /api/healthz` (the run
 * contract's "Readiness").
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(120_000);

describe('readiness', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_readiness');
    workDir = makeWorkDir();
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  it('comes up with [service] REQUIRE_SIGNIN_VIEW on, and answers anonymous /version 403 and /api/healthz 200', async () => {
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0', CAIRN__service__REQUIRE_SIGNIN_VIEW: 'true' });
    instance = await startInstance(workDir, env);
    expect(instance.runtime.state).toBe('ready');
    const api = apiClient(instance.httpUrl);
    const anonymous = await api.request<{ message: string }>('GET', '/api/v1/version');
    expect(anonymous.status).toBe(403);
    expect(typeof anonymous.body.message).toBe('string');
    expect((await fetch(`${instance.httpUrl}/api/healthz`)).status).toBe(200);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com'], env)).code).toBe(0);
    const signedIn = await api.request<{ version: string }>('GET', '/api/v1/version', { headers: basicAuth('root', 'root-pass-123') });
    expect(signedIn.status).toBe(200);
  });
});
