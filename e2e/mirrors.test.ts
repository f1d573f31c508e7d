/**
 * Mirrors end to end, against git's own `git http-backend` on loopback (@cairn/testing git-cgi.ts) with
 * `[migrations] ALLOW_LOCALNETWORKS = true` and 127.0.0.2 blocked: a pull mirror imported from the source, a new
 * commit on the source brought over by mirror-sync, pushes to the mirror refused, mirror-sync of a repository that is
 * not a mirror (400), mirror_interval edits (0, below the minimum 422, malformed 422); a push mirror to a bare
 * repository made equal by a push to Cairn (sync_on_commit), its list/get/delete shapes (validated against Gitea's
 * schema by the e2e client), a bad interval (400) and a blocked remote (401, never contacted).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { gitHttpBackend } from '@cairn/testing';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { gitTestEnv } from './support/instance';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

interface Served {
  base: string;
  connections: number;
  close(): Promise<void>;
}

/** A loopback HTTP server counting its connections. */
async function serve(host: string, handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  const served = { base: '', connections: 0, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  server.on('connection', (socket) => {
    served.connections += 1;
    socket.unref();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  served.base = `http://${host}:${(server.address() as AddressInfo).port}/`;
  return served;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('mirrors', () => {
  let fixture: Fixture;
  let scratch: string;
  let remotes: string;
  let backend: Served;
  let gitEnv: NodeJS.ProcessEnv;

  const call = (method: string, apiPath: string, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${apiPath}`, { headers: fixture.as('alice'), body });

  function git(args: string[], cwd = scratch): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile('git', args, { cwd, env: gitEnv }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });
  }
  async function gitOk(args: string[], cwd = scratch): Promise<string> {
    const result = await git(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed:\n${result.stderr}`);
    return result.stdout.trim();
  }
  async function commitAndPush(work: string, file: string): Promise<string> {
    fs.writeFileSync(path.join(work, file), `${file}\n`);
    await gitOk(['add', '--', file], work);
    await gitOk(['commit', '--quiet', '-m', `add ${file}`], work);
    await gitOk(['push', '--quiet', 'origin', 'HEAD:main'], work);
    return gitOk(['rev-parse', 'HEAD'], work);
  }
  const branchCommit = async (repo: string, branch: string): Promise<string | undefined> => {
    const answer = await call('GET', `/repos/alice/${repo}/branches/${branch}`);
    return answer.status === 200 ? String((answer.body.commit as Json).id) : undefined;
  };

  beforeAll(async () => {
    fixture = await startFixture('e2e_mirrors', ['alice'], {
      CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true',
      CAIRN__migrations__BLOCKED_DOMAINS: '127.0.0.2',
    });
    scratch = fs.mkdtempSync(path.join(path.dirname(fixture.workDir), 'scratch-'));
    remotes = path.join(scratch, 'remotes');
    fs.mkdirSync(remotes);
    gitEnv = gitTestEnv(scratch);
    // The source of the pull mirror, and the bare repository the push mirror pushes to.
    await gitOk(['init', '--quiet', '--bare', '--initial-branch=main', path.join(remotes, 'source.git')]);
    await gitOk(['init', '--quiet', '--bare', '--initial-branch=main', path.join(remotes, 'target.git')]);
    await gitOk(['clone', '--quiet', path.join(remotes, 'source.git'), 'work']);
    await commitAndPush(path.join(scratch, 'work'), 'README.md');
    // REMOTE_USER lets git http-backend take pushes.
    backend = await serve('127.0.0.1', gitHttpBackend(remotes, 'mirror'));
  });

  afterAll(async () => {
    await backend?.close();
    await fixture?.stop();
  });

  it('keeps a pull mirror in sync on mirror-sync and refuses pushes to it', async () => {
    const migrated = await call('POST', '/repos/migrate', { clone_addr: `${backend.base}source.git`, repo_name: 'pulled', mirror: true, mirror_interval: '10m' });
    expect(migrated.status).toBe(201);
    expect(migrated.body).toMatchObject({ mirror: true, mirror_interval: '10m0s', empty: false });
    const firstSync = await until('mirror_updated', async () => {
      const got = await call('GET', '/repos/alice/pulled');
      return String(got.body.mirror_updated).startsWith('0001-') ? undefined : String(got.body.mirror_updated);
    });

    const head = await commitAndPush(path.join(scratch, 'work'), 'second.txt');
    expect(await branchCommit('pulled', 'main')).not.toBe(head);
    expect((await call('POST', '/repos/alice/pulled/mirror-sync')).status).toBe(200);
    await until('the new commit in the mirror', async () => ((await branchCommit('pulled', 'main')) === head ? true : undefined));
    const after = await call('GET', '/repos/alice/pulled');
    expect(Date.parse(String(after.body.mirror_updated))).toBeGreaterThanOrEqual(Date.parse(firstSync));

    // A push to the mirror is refused.
    const url = new URL(`${fixture.instance.httpUrl}/alice/pulled.git`);
    url.username = 'alice';
    url.password = USER_PASSWORD;
    await gitOk(['clone', '--quiet', url.toString(), 'pulled-clone']);
    const clone = path.join(scratch, 'pulled-clone');
    fs.writeFileSync(path.join(clone, 'mine.txt'), 'mine\n');
    await gitOk(['add', 'mine.txt'], clone);
    await gitOk(['commit', '--quiet', '-m', 'mine'], clone);
    const pushed = await git(['push', 'origin', 'HEAD:main'], clone);
    expect(pushed.code).not.toBe(0);
    expect(await branchCommit('pulled', 'main')).toBe(head);
  });

  it('answers mirror-sync of a repository that is not a mirror 400', async () => {
    expect((await call('POST', '/user/repos', { name: 'plain', auto_init: true })).status).toBe(201);
    expect(await call('POST', '/repos/alice/plain/mirror-sync')).toMatchObject({ status: 400, body: { message: 'Repository is not a mirror' } });
  });

  it('edits mirror_interval: 0 turns periodic syncs off, below the minimum and malformed are 422', async () => {
    expect(await call('PATCH', '/repos/alice/pulled', { mirror_interval: '0' })).toMatchObject({ status: 200, body: { mirror_interval: '0s' } });
    expect(await call('PATCH', '/repos/alice/pulled', { mirror_interval: '5m' })).toMatchObject({
      status: 422,
      body: { message: 'invalid mirror interval: 5m0s is below minimum interval: 10m0s' },
    });
    expect((await call('PATCH', '/repos/alice/pulled', { mirror_interval: 'soon' })).status).toBe(422);
    expect((await call('PATCH', '/repos/alice/plain', { mirror_interval: '1h' })).status).toBe(422);
    expect((await call('GET', '/repos/alice/pulled')).body).toMatchObject({ mirror_interval: '0s' });
  });

  it('pushes to a push mirror on commit; lists, gets and deletes it', async () => {
    const added = await call('POST', '/repos/alice/plain/push_mirrors', {
      remote_address: `${backend.base}target.git`,
      remote_username: 'pusher',
      remote_password: 'not-shown',
      interval: '0',
      sync_on_commit: true,
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ repo_name: 'plain', remote_address: `${backend.base}target.git`, interval: '0s', sync_on_commit: true, last_error: '', last_update: '1970-01-01T00:00:00Z' });
    expect(String(added.body.remote_name)).toMatch(/^remote_mirror_[A-Za-z0-9]{10}$/);
    expect(JSON.stringify(added.body)).not.toContain('not-shown');
    const name = String(added.body.remote_name);

    // A commit through the contents API is a push: the mirror follows.
    const created = await call('POST', '/repos/alice/plain/contents/pushed.txt', { content: Buffer.from('pushed\n').toString('base64'), message: 'pushed' });
    expect(created.status).toBe(201);
    const head = await branchCommit('plain', 'main');
    const target = path.join(remotes, 'target.git');
    await until('the push mirror to be equal', async () => {
      const refs = await git(['--git-dir', target, 'rev-parse', 'refs/heads/main']);
      return refs.code === 0 && refs.stdout.trim() === head ? true : undefined;
    });

    const listed = await call('GET', '/repos/alice/plain/push_mirrors');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total-count')).toBe('1');
    expect(listed.body).toEqual([expect.objectContaining({ remote_name: name, last_error: '' })]);
    const got = await call('GET', `/repos/alice/plain/push_mirrors/${name}`);
    expect(got.status).toBe(200);
    expect(got.body.last_update).not.toBe('1970-01-01T00:00:00Z');

    expect((await call('DELETE', `/repos/alice/plain/push_mirrors/${name}`)).status).toBe(204);
    expect((await call('GET', `/repos/alice/plain/push_mirrors/${name}`)).status).toBe(404);
    expect((await call('DELETE', `/repos/alice/plain/push_mirrors/${name}`)).status).toBe(404);
  });

  it('refuses a push mirror with a bad interval (400) or a blocked remote (401, never contacted)', async () => {
    const blocked = await serve('127.0.0.2', (_req, res) => res.end());
    try {
      const small = await call('POST', '/repos/alice/plain/push_mirrors', { remote_address: `${backend.base}target.git`, interval: '1m' });
      expect(small).toMatchObject({ status: 400, body: { message: 'invalid push mirror interval: 1m0s is below minimum interval: 10m0s' } });
      const refused = await call('POST', '/repos/alice/plain/push_mirrors', { remote_address: `${blocked.base}target.git`, interval: '0' });
      expect(refused).toMatchObject({ status: 401, body: { message: 'Permission denied' } });
      expect((await call('POST', '/repos/alice/plain/push_mirrors', { remote_address: '/srv/git/target.git', interval: '0' })).status).toBe(401);
      expect((await call('GET', '/repos/alice/plain/push_mirrors')).body).toEqual([]);
      expect(blocked.connections).toBe(0);
    } finally {
      await blocked.close();
    }
  });
});
