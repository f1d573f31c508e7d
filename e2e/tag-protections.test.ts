/**
 * Protected tags through the real gateway: the `/tag_protections` rules with Gitea's statuses (admins only,
 * patterns checked, allow lists of users and of an organization's teams), the tag API refusing a protected tag
 * to a writer the rules do not list (422) and letting a listed user or team member through, and `git push`
 * creating or deleting a protected tag refused with Gitea's pre-receive line unless the pusher is listed.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, gitTestEnv, type Instance, makeWorkDir, runCli, startInstance } from './support/instance';

jest.setTimeout(180_000);

interface ApiTagProtection {
  id: number;
  name_pattern: string;
  whitelist_usernames: string[];
  whitelist_teams: string[];
  created_at: string;
  updated_at: string;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('protected tags', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;
  let scratch: string;
  let gitEnv: NodeJS.ProcessEnv;

  const password = 'user-pass-123';
  const root = basicAuth('root', 'root-pass-123');
  const as = (name: string) => basicAuth(name, password);

  function call<T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  }

  function remote(repo: string, user: string): string {
    const url = new URL(`${instance.httpUrl}/${repo}.git`);
    url.username = user;
    url.password = password;
    return url.toString();
  }

  function git(args: string[], cwd = scratch): Promise<Run> {
    return new Promise((resolve) => {
      execFile('git', args, { cwd, env: gitEnv }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });
  }

  async function gitOk(args: string[], cwd = scratch): Promise<string> {
    const result = await git(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
    return result.stdout;
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2e_tag_protections');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    for (const username of ['alice', 'bob', 'carol', 'dave']) {
      const made = await call('POST', '/admin/users', root, { username, email: `${username}@example.com`, password, must_change_password: false });
      expect(made.status).toBe(201);
    }
    // alice/app: bob and carol write to it.
    expect((await call('POST', '/user/repos', as('alice'), { name: 'app', auto_init: true })).status).toBe(201);
    for (const writer of ['bob', 'carol']) expect((await call('PUT', `/repos/alice/app/collaborators/${writer}`, as('alice'), { permission: 'write' })).status).toBe(204);
    // acme/lib: bob writes as a collaborator, dave through the team `releasers`.
    expect((await call('POST', '/orgs', as('alice'), { username: 'acme', email: 'acme@example.com', visibility: 'public' })).status).toBe(201);
    expect((await call('POST', '/orgs/acme/repos', as('alice'), { name: 'lib', auto_init: true })).status).toBe(201);
    const team = await call<{ id: number }>('POST', '/orgs/acme/teams', as('alice'), { name: 'releasers', units_map: { 'repo.code': 'write' } });
    expect(team.status).toBe(201);
    expect((await call('PUT', `/teams/${team.body.id}/members/dave`, as('alice'))).status).toBe(204);
    expect((await call('PUT', `/teams/${team.body.id}/repos/acme/lib`, as('alice'))).status).toBe(204);
    expect((await call('PUT', '/repos/acme/lib/collaborators/bob', as('alice'), { permission: 'write' })).status).toBe(204);

    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-tag-protections-'));
    const home = path.join(scratch, 'home');
    fs.mkdirSync(home);
    gitEnv = gitTestEnv(home);
  });

  afterAll(async () => {
    if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  const rules = '/repos/alice/app/tag_protections';

  describe('rules', () => {
    let id = 0;

    it('creates a rule (201) and refuses what Gitea refuses', async () => {
      const created = await call<ApiTagProtection>('POST', rules, as('alice'), { name_pattern: 'v*', whitelist_usernames: ['carol'] });
      expect(created).toMatchObject({ status: 201, body: { name_pattern: 'v*', whitelist_usernames: ['carol'], whitelist_teams: [] } });
      id = created.body.id;

      expect(await call('POST', rules, as('alice'), { name_pattern: 'v*', whitelist_usernames: ['bob'] })).toMatchObject({
        status: 403,
        body: { message: 'Tag protection already exist' },
      });
      expect(await call('POST', rules, as('alice'), { name_pattern: ' ', whitelist_usernames: ['bob'] })).toMatchObject({
        status: 400,
        body: { message: 'name_pattern are empty' },
      });
      expect(await call('POST', rules, as('alice'), { name_pattern: 'x*' })).toMatchObject({
        status: 400,
        body: { message: 'both whitelist_usernames and whitelist_teams are empty' },
      });
      expect((await call('POST', rules, as('alice'), { name_pattern: 'v[', whitelist_usernames: ['bob'] })).status).toBe(422);
      expect((await call('POST', rules, as('alice'), { name_pattern: '/(?<=v)1/', whitelist_usernames: ['bob'] })).status).toBe(422);
      expect(await call('POST', rules, as('alice'), { name_pattern: 'x*', whitelist_usernames: ['ghost'] })).toMatchObject({
        status: 422,
        body: { message: 'user does not exist [uid: 0, name: ghost]' },
      });
      expect((await call('POST', rules, as('bob'), { name_pattern: 'x*', whitelist_usernames: ['bob'] })).status).toBe(403);
      expect((await call('POST', rules, undefined, { name_pattern: 'x*', whitelist_usernames: ['bob'] })).status).toBe(401);
      expect((await call<ApiTagProtection[]>('GET', rules, as('alice'))).body.map((rule) => rule.name_pattern)).toEqual(['v*']);
    });

    it('lists and gets rules for admins only, 404 for a rule the repository does not have', async () => {
      expect(await call('GET', `${rules}/${id}`, as('alice'))).toMatchObject({ status: 200, body: { id, name_pattern: 'v*' } });
      expect((await call('GET', `${rules}/999999`, as('alice'))).status).toBe(404);
      expect((await call('GET', `${rules}/not-a-number`, as('alice'))).status).toBe(404);
      expect((await call('GET', rules, as('bob'))).status).toBe(403);
      expect((await call('GET', `${rules}/${id}`, as('bob'))).status).toBe(403);
    });

    it('edits only the fields given and deletes', async () => {
      const edited = await call<ApiTagProtection>('PATCH', `${rules}/${id}`, as('alice'), { whitelist_usernames: ['carol', 'alice'] });
      expect(edited).toMatchObject({ status: 200, body: { name_pattern: 'v*', whitelist_usernames: ['carol', 'alice'] } });
      expect((await call('PATCH', `${rules}/${id}`, as('alice'), { name_pattern: '{v' })).status).toBe(422);
      expect((await call('PATCH', `${rules}/${id}`, as('alice'), { whitelist_usernames: ['ghost'] })).status).toBe(422);
      expect((await call('PATCH', `${rules}/999999`, as('alice'), { name_pattern: 'x' })).status).toBe(404);
      expect((await call('PATCH', `${rules}/${id}`, as('bob'), { name_pattern: 'x' })).status).toBe(403);

      const scratchRule = await call<ApiTagProtection>('POST', rules, as('alice'), { name_pattern: '/^tmp-/', whitelist_usernames: ['bob'] });
      expect(scratchRule.status).toBe(201);
      expect((await call('DELETE', `${rules}/${scratchRule.body.id}`, as('bob'))).status).toBe(403);
      expect((await call('DELETE', `${rules}/${scratchRule.body.id}`, as('alice'))).status).toBe(204);
      expect((await call('DELETE', `${rules}/${scratchRule.body.id}`, as('alice'))).status).toBe(404);
      expect((await call('GET', `${rules}/${scratchRule.body.id}`, as('alice'))).status).toBe(404);
    });
  });

  describe('the tag API', () => {
    it('refuses a protected tag to a writer not on the list (422) and lets a listed user create and delete it', async () => {
      expect(await call('POST', '/repos/alice/app/tags', as('bob'), { tag_name: 'v1' })).toMatchObject({
        status: 422,
        body: { message: 'user not allowed to create protected tag' },
      });
      expect((await call('GET', '/repos/alice/app/tags/v1')).status).toBe(404);
      expect((await call('POST', '/repos/alice/app/tags', as('carol'), { tag_name: 'v1' })).status).toBe(201);
      expect(await call('DELETE', '/repos/alice/app/tags/v1', as('bob'))).toMatchObject({
        status: 422,
        body: { message: 'user not allowed to delete protected tag' },
      });
      expect((await call('DELETE', '/repos/alice/app/tags/v1', as('carol'))).status).toBe(204);
      // A tag no rule matches is any writer's.
      expect((await call('POST', '/repos/alice/app/tags', as('bob'), { tag_name: 'nightly' })).status).toBe(201);
      expect((await call('DELETE', '/repos/alice/app/tags/nightly', as('bob'))).status).toBe(204);
    });

    it('refuses a release that would create a protected tag (422, no tag, no release) and lets a listed user publish it', async () => {
      expect(await call('POST', '/repos/alice/app/releases', as('bob'), { tag_name: 'v3', name: 'three' })).toMatchObject({ status: 422 });
      expect((await call('GET', '/repos/alice/app/tags/v3')).status).toBe(404);
      expect((await call('GET', '/repos/alice/app/releases/tags/v3')).status).toBe(404);
      // A draft creates no tag, so it is anyone's to write; publishing it creates the tag and is refused the same way.
      const draft = await call<{ id: number }>('POST', '/repos/alice/app/releases', as('bob'), { tag_name: 'v3', draft: true });
      expect(draft.status).toBe(201);
      expect((await call('PATCH', `/repos/alice/app/releases/${draft.body.id}`, as('bob'), { draft: false })).status).toBe(422);
      expect((await call('GET', '/repos/alice/app/tags/v3')).status).toBe(404);
      expect(await call('PATCH', `/repos/alice/app/releases/${draft.body.id}`, as('carol'), { draft: false })).toMatchObject({ status: 200, body: { draft: false, tag_name: 'v3' } });
      expect((await call('GET', '/repos/alice/app/tags/v3')).status).toBe(200);
      expect((await call('DELETE', `/repos/alice/app/releases/${draft.body.id}`, as('carol'))).status).toBe(204);
      expect((await call('DELETE', '/repos/alice/app/tags/v3', as('carol'))).status).toBe(204);
    });

    it("lets members of a listed team of the repository's organization through", async () => {
      const lib = '/repos/acme/lib/tag_protections';
      expect((await call('POST', lib, as('alice'), { name_pattern: '/^rel-/', whitelist_teams: ['nobody'] })).status).toBe(422);
      expect(await call('POST', lib, as('alice'), { name_pattern: '/^rel-/', whitelist_teams: ['releasers'] })).toMatchObject({
        status: 201,
        body: { name_pattern: '/^rel-/', whitelist_teams: ['releasers'], whitelist_usernames: [] },
      });
      expect((await call('POST', '/repos/acme/lib/tags', as('bob'), { tag_name: 'rel-1' })).status).toBe(422);
      // The organization's owner is not exempt.
      expect((await call('POST', '/repos/acme/lib/tags', as('alice'), { tag_name: 'rel-1' })).status).toBe(422);
      expect((await call('POST', '/repos/acme/lib/tags', as('dave'), { tag_name: 'rel-1' })).status).toBe(201);
      expect((await call('DELETE', '/repos/acme/lib/tags/rel-1', as('bob'))).status).toBe(422);
      expect((await call('DELETE', '/repos/acme/lib/tags/rel-1', as('dave'))).status).toBe(204);
    });
  });

  describe('git push', () => {
    it('refuses creating and deleting a protected tag to a pusher not on the list, and accepts them from one who is', async () => {
      const bobClone = path.join(scratch, 'bob');
      await gitOk(['clone', '--quiet', remote('alice/app', 'bob'), bobClone]);
      await gitOk(['tag', 'v2'], bobClone);

      const refused = await git(['push', 'origin', 'v2'], bobClone);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('remote: Tag v2 is protected');
      expect((await call('GET', '/repos/alice/app/tags/v2')).status).toBe(404);

      // Other tags go through.
      await gitOk(['tag', 'build-7'], bobClone);
      await gitOk(['push', '--quiet', 'origin', 'build-7'], bobClone);
      expect((await call('GET', '/repos/alice/app/tags/build-7')).status).toBe(200);

      const carolClone = path.join(scratch, 'carol');
      await gitOk(['clone', '--quiet', remote('alice/app', 'carol'), carolClone]);
      await gitOk(['tag', 'v2'], carolClone);
      await gitOk(['push', '--quiet', 'origin', 'v2'], carolClone);
      expect((await call('GET', '/repos/alice/app/tags/v2')).status).toBe(200);

      const deleteRefused = await git(['push', 'origin', ':refs/tags/v2'], bobClone);
      expect(deleteRefused.code).not.toBe(0);
      expect(deleteRefused.stderr).toContain('remote: Tag v2 is protected');
      expect((await call('GET', '/repos/alice/app/tags/v2')).status).toBe(200);

      await gitOk(['push', '--quiet', 'origin', ':refs/tags/v2'], carolClone);
      expect((await call('GET', '/repos/alice/app/tags/v2')).status).toBe(404);
    });
  });
});
