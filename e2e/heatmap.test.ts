/**
 * The user heatmap end to end: the built supervisor with PostgreSQL and NATS (every service its own process),
 * users and repositories made through the API, activity from real `git push`es over smart HTTP (git-storage
 * publishes cairn.git.pushed, notifications counts it), read through the gateway with the validating client.
 * Each viewer sees the user's activity in the repositories repos says they may read now — anonymous callers and
 * other users the public repositories of visible owners, a restricted user only what they were given, a
 * collaborator the private repository too, the owner of a repository the user pushed to that one too, the user
 * what they can still read, a site admin everything —
 * `hide_activity` leaving others an empty list; 404 for an invisible user, 307 for a renamed one, and no sign-in
 * needed under `[ui.explore] REQUIRE_SIGNIN_VIEW`.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestDatabase, testNatsUrl, type TestDatabase } from '@cairn/testing';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from '../libs/bus/src/test-support/nats-server';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, gitTestEnv, type Instance, makeWorkDir, runCli, startInstance, waitFor } from './support/instance';

jest.setTimeout(180_000);

const PASSWORD = 'heatmap-pass-123';
const ADMIN = basicAuth('root', PASSWORD);
const QUARTER_HOUR = 900;
const as = (username: string) => basicAuth(username, PASSWORD);

interface HeatmapEntry {
  timestamp: number;
  contributions: number;
}

describe('user heatmap through the gateway, fed by git pushes', () => {
  // The durable consumer notifications-activity is shared by every Cairn on a NATS server, so other e2e files
  // running instances at the same time would take this file's pushes: use a server of its own when possible.
  let privateNats: PrivateNatsServer | undefined;
  let database: TestDatabase;
  let workDir: string;
  let scratch: string;
  let gitEnv: NodeJS.ProcessEnv;
  let instance: Instance | undefined;
  let api: ApiClient;
  let startedAt: number;
  /** alice's contributions per repository. */
  const pushed: Record<string, number> = {};

  function git(args: string[], cwd: string): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('git', args, { cwd, env: gitEnv }, (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`git ${args.join(' ')} failed:\n${stderr}`));
      });
    });
  }

  /**
   * Pushes to `repo` as `user` through smart HTTP: one commit on `branches` new branches in one push (Gitea counts
   * a created branch twice), then `updates` more commits to main, one push each (once each). Answers the count.
   */
  async function contribute(repo: string, user: string, branches: number, updates = 0): Promise<number> {
    const remote = new URL(`${instance!.httpUrl}/${repo}.git`);
    remote.username = user;
    remote.password = PASSWORD;
    const cwd = fs.mkdtempSync(path.join(scratch, 'clone-'));
    await git(['init', '--quiet', '--initial-branch', 'main'], cwd);
    await git(['commit', '--quiet', '--allow-empty', '--message', `first in ${repo}`], cwd);
    const refspecs = Array.from({ length: branches }, (_, i) => (i === 0 ? 'HEAD:refs/heads/main' : `HEAD:refs/heads/b${i}`));
    await git(['push', '--quiet', remote.toString(), ...refspecs], cwd);
    for (let i = 0; i < updates; i += 1) {
      await git(['commit', '--quiet', '--allow-empty', '--message', `update ${i}`], cwd);
      await git(['push', '--quiet', remote.toString(), 'HEAD:refs/heads/main'], cwd);
    }
    return 2 * branches + updates;
  }

  async function heatmap(username: string, headers: Record<string, string> = {}) {
    return api.request<HeatmapEntry[]>('GET', `/api/v1/users/${username}/heatmap`, { headers });
  }

  const total = (entries: HeatmapEntry[]) => entries.reduce((sum, entry) => sum + entry.contributions, 0);

  async function createUser(username: string, fields: Record<string, unknown> = {}): Promise<void> {
    const res = await api.request('POST', '/api/v1/admin/users', {
      headers: ADMIN,
      body: { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false, ...fields },
    });
    expect(res.status).toBe(201);
  }

  async function expectStatus(status: number, method: string, apiPath: string, headers: Record<string, string>, body?: unknown) {
    const res = await api.request(method, `/api/v1${apiPath}`, { headers, body });
    expect({ method, apiPath, status: res.status }).toEqual({ method, apiPath, status });
  }

  beforeAll(async () => {
    const binary = findNatsServer();
    privateNats = binary === undefined ? undefined : await startPrivateNatsServer(binary);
    database = await createTestDatabase('e2e_heatmap');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, {
      CAIRN__database__URL: database.url,
      CAIRN__bus__URL: privateNats?.url ?? testNatsUrl(),
      CAIRN__server__HTTP_PORT: '0',
      CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true',
    });
    instance = await startInstance(workDir, env);
    expect(instance.runtime.mode).toBe('processes');
    expect(instance.runtime.services.notifications?.process?.pid).toBeGreaterThan(0);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', PASSWORD, '--email', 'root@example.com', '--admin'], env);
    expect(created.code).toBe(0);
    api = apiClient(instance.httpUrl);
    for (const username of ['alice', 'bob', 'colin', 'dave', 'carol']) await createUser(username);
    await createUser('rita', { restricted: true });
    await createUser('hidden', { visibility: 'private' });

    // alice's repositories: public and private of her own, a public one in a public and in a private organization
    // she owns, and bob's private one she may push to until bob takes that back.
    await expectStatus(201, 'POST', '/user/repos', as('alice'), { name: 'pub', private: false });
    await expectStatus(201, 'POST', '/user/repos', as('alice'), { name: 'priv', private: true });
    await expectStatus(201, 'POST', '/orgs', as('alice'), { username: 'pubco', email: 'pubco@example.com', visibility: 'public' });
    await expectStatus(201, 'POST', '/orgs/pubco/repos', as('alice'), { name: 'lib', private: false });
    await expectStatus(201, 'POST', '/orgs', as('alice'), { username: 'privco', email: 'privco@example.com', visibility: 'private' });
    await expectStatus(201, 'POST', '/orgs/privco/repos', as('alice'), { name: 'tool', private: false });
    await expectStatus(201, 'POST', '/user/repos', as('bob'), { name: 'shared', private: true });
    // rita (restricted) is given alice/pub, colin alice/priv; alice may write to bob/shared.
    await expectStatus(204, 'PUT', '/repos/alice/pub/collaborators/rita', as('alice'), { permission: 'read' });
    await expectStatus(204, 'PUT', '/repos/alice/priv/collaborators/colin', as('alice'), { permission: 'read' });
    await expectStatus(204, 'PUT', '/repos/bob/shared/collaborators/alice', as('bob'), { permission: 'write' });

    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-heatmap-'));
    gitEnv = gitTestEnv(scratch);
    startedAt = Math.floor(Date.now() / 1000);
    // Each weight is more than all smaller ones together, so every total belongs to one set of repositories.
    pushed['alice/pub'] = await contribute('alice/pub', 'alice', 1);
    pushed['pubco/lib'] = await contribute('pubco/lib', 'alice', 1, 1);
    pushed['alice/priv'] = await contribute('alice/priv', 'alice', 3);
    pushed['privco/tool'] = await contribute('privco/tool', 'alice', 6);
    pushed['bob/shared'] = await contribute('bob/shared', 'alice', 12);
    expect(Object.values(pushed)).toEqual([2, 3, 6, 12, 24]);
    await expectStatus(204, 'DELETE', '/repos/bob/shared/collaborators/alice', as('bob'));

    const everything = Object.values(pushed).reduce((sum, count) => sum + count, 0);
    await waitFor('the pushes to reach the heatmap', async () => (total((await heatmap('alice', ADMIN)).body) === everything ? true : undefined));
  });

  afterAll(async () => {
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
    await database?.drop();
    await privateNats?.dispose();
  });

  /** Who looks, and the repositories whose activity of alice's they may see. */
  const viewers: Record<string, { headers: Record<string, string>; sees: string[] }> = {
    anonymous: { headers: {}, sees: ['alice/pub', 'pubco/lib'] },
    'another user': { headers: as('dave'), sees: ['alice/pub', 'pubco/lib'] },
    'bob, owner of bob/shared': { headers: as('bob'), sees: ['alice/pub', 'pubco/lib', 'bob/shared'] },
    'a restricted user given alice/pub': { headers: as('rita'), sees: ['alice/pub'] },
    'a collaborator on alice/priv': { headers: as('colin'), sees: ['alice/pub', 'pubco/lib', 'alice/priv'] },
    'alice herself (no longer in bob/shared)': { headers: as('alice'), sees: ['alice/pub', 'pubco/lib', 'alice/priv', 'privco/tool'] },
    'a site admin': { headers: ADMIN, sees: ['alice/pub', 'pubco/lib', 'alice/priv', 'privco/tool', 'bob/shared'] },
  };
  const contributionsIn = (repos: string[]) => repos.reduce((sum, repo) => sum + pushed[repo], 0);

  it('shows each viewer the activity in the repositories they may read, in quarter-hour buckets since the pushes', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const [name, { headers, sees }] of Object.entries(viewers)) {
      const res = await heatmap('alice', headers);
      expect({ name, status: res.status, contributions: total(res.body) }).toEqual({ name, status: 200, contributions: contributionsIn(sees) });
      expect(res.body.length).toBeGreaterThan(0);
      for (const entry of res.body) {
        expect(entry.timestamp % QUARTER_HOUR).toBe(0);
        expect(entry.timestamp).toBeGreaterThanOrEqual(startedAt - (startedAt % QUARTER_HOUR));
        expect(entry.timestamp).toBeLessThanOrEqual(now);
      }
    }
  });

  it('counts only what the user pushed: bob’s heatmap is empty', async () => {
    expect(await heatmap('bob', ADMIN)).toMatchObject({ status: 200, body: [] });
  });

  it('hide_activity: others get an empty list, the user and admins still see theirs', async () => {
    const hidden = await api.request('PATCH', '/api/v1/user/settings', { headers: as('alice'), body: { hide_activity: true } });
    expect(hidden.status).toBe(200);
    for (const [name, { headers, sees }] of Object.entries(viewers)) {
      const shown = name.startsWith('alice') || name === 'a site admin';
      const res = await heatmap('alice', headers);
      expect({ name, status: res.status, contributions: total(res.body) }).toEqual({ name, status: 200, contributions: shown ? contributionsIn(sees) : 0 });
    }
  });

  it('answers 404 for a user the caller may not see', async () => {
    for (const headers of [{}, as('dave')]) expect((await heatmap('hidden', headers)).status).toBe(404);
    expect(await heatmap('hidden', ADMIN)).toMatchObject({ status: 200, body: [] });
    expect((await heatmap('nobody')).status).toBe(404);
  });

  it('answers 307 from a renamed user’s old name', async () => {
    const renamed = await api.request('POST', '/api/v1/admin/users/carol/rename', { headers: ADMIN, body: { new_username: 'caroline' } });
    expect(renamed.status).toBe(204);
    const res = await heatmap('carol');
    expect([res.status, res.headers.get('location')]).toEqual([307, '/api/v1/users/caroline/heatmap']);
    expect(await heatmap('caroline')).toMatchObject({ status: 200, body: [] });
  });

  it('keeps /users/{username} itself behind the explore sign-in', async () => {
    expect((await api.request('GET', '/api/v1/users/alice')).status).toBe(401);
  });

  it('stops every service, notifications included, cleanly on SIGTERM', async () => {
    expect(await instance?.stop()).toEqual({ code: 0, signal: null });
  });
});
