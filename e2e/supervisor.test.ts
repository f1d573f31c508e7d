/**
 * The supervisor with a real PostgreSQL and NATS configured: every service is its own child process, a
 * crashed child comes back, a supervisor killed with SIGKILL leaves nothing in the way of the next one,
 * and SIGTERM shuts everything down cleanly.
 */
import * as fs from 'node:fs';
import { createTestDatabase, testNatsUrl, type TestDatabase, uniqueName } from '@cairn/testing';
import {
  baseEnv,
  basicAuth,
  cleanUpWorkDir,
  freePort,
  isAlive,
  makeWorkDir,
  readRuntime,
  runCli,
  runtimePath,
  startInstance,
  waitFor,
  type Instance,
} from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(180_000);

describe('supervisor with PostgreSQL and NATS configured', () => {
  // A `[bus] PREFIX` of its own on the machine's NATS, its streams deleted afterwards.
  const prefix = uniqueName('e2esuper');
  let database: TestDatabase;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let instance: Instance;
  const instances: Instance[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('e2e_supervisor');
    workDir = makeWorkDir();
    env = baseEnv(workDir, {
      CAIRN__database__URL: database.url,
      CAIRN__bus__URL: testNatsUrl(),
      CAIRN__bus__PREFIX: prefix,
      // A fixed port, so a restart after `kill -9` needs the old gateway gone.
      CAIRN__server__HTTP_PORT: String(await freePort()),
    });
    instance = await startInstance(workDir, env);
    instances.push(instance);
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instances);
    await database?.drop();
    await deleteStreamsOf([prefix]);
  });

  const childPid = (name: string): number => {
    const pid = readRuntime(workDir)?.services[name]?.process?.pid;
    if (pid === undefined) throw new Error(`no pid recorded for ${name}`);
    return pid;
  };

  it('runs each service as its own process and answers /api/v1/version', async () => {
    expect(instance.runtime).toMatchObject({ mode: 'processes', embeddedDatabase: false, busUrl: testNatsUrl() });
    for (const name of ['accounts', 'gateway']) {
      expect(childPid(name)).not.toBe(instance.child.pid);
      expect(isAlive(childPid(name))).toBe(true);
    }
    const response = await fetch(`${instance.httpUrl}/api/v1/version`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ version: expect.any(String) });
  });

  it('restarts a killed child, after which the API works again', async () => {
    const created = await runCli(
      ['admin', 'user', 'create', '--username', 'carol', '--password', 'carol-pass-1', '--email', 'carol@example.com'],
      env,
    );
    expect(created).toMatchObject({ code: 0, stdout: expect.stringMatching(/^user "carol" created \(id \d+\)\n$/) });

    for (const name of ['accounts', 'gateway']) {
      const before = childPid(name);
      process.kill(before, 'SIGKILL');
      const after = await waitFor(`${name} to be restarted`, () => {
        const pid = readRuntime(workDir)?.services[name]?.process?.pid;
        return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
      });
      expect(after).not.toBe(before);
      // The user endpoint needs both the gateway and accounts.
      await waitFor(`the API to work again after ${name} was killed`, async () => {
        const response = await fetch(`${instance.httpUrl}/api/v1/user`, { headers: basicAuth('carol', 'carol-pass-1') }).catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      });
    }
    expect(instance.output()).toMatch(/accounts exited unexpectedly; restarting it/);
  });

  it('after kill -9 of the supervisor, a new one stops the orphaned children and takes over', async () => {
    const orphans = ['accounts', 'gateway'].map(childPid);
    instance.child.kill('SIGKILL');
    await instance.exited;
    // Children run in their own process groups: they outlive a supervisor killed outright.
    for (const pid of orphans) expect(isAlive(pid)).toBe(true);

    instance = await startInstance(workDir, env);
    instances.push(instance);
    for (const pid of orphans) expect(isAlive(pid)).toBe(false);
    const response = await fetch(`${instance.httpUrl}/api/v1/user`, { headers: basicAuth('carol', 'carol-pass-1') });
    expect(response.status).toBe(200);
  });

  it('exits 0 on SIGTERM, stopping its children and removing the runtime file', async () => {
    const children = ['accounts', 'gateway'].map(childPid);
    expect(await instance.stop()).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(runtimePath(workDir))).toBe(false);
    for (const pid of children) expect(isAlive(pid)).toBe(false);
  });
});
