/**
 * Stars and watches end to end: the built supervisor on PostgreSQL, driven over HTTP through the validating
 * client (every body checked against Gitea's description). Starring and watching are idempotent and show in the
 * repository's `stars_count` / `watchers_count`; new repositories are watched by their creator; lists page with
 * Link and X-Total-Count; private repositories are never listed to, starred by or watched by those who may not
 * read them; a deleted repository's stars go with it; `[repository] DISABLE_STARS` closes the star routes.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, waitFor, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface ApiUser {
  id: number;
  login: string;
}
interface ApiRepo {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  stars_count: number;
  watchers_count: number;
}
interface WatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: unknown;
  created_at: string;
  url: string;
  repository_url: string;
}

const PASSWORD = 'user-pass-123';
const as = (name: string) => basicAuth(name, PASSWORD);
const root = basicAuth('root', 'root-pass-123');

/** An instance on its own database with the users alice, bob and carol and some of their repositories. */
async function startWithUsers(prefix: string, extraEnv: Record<string, string> = {}) {
  const database = await createTestDatabase(prefix);
  const workDir = makeWorkDir();
  const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0', ...extraEnv });
  const instance = await startInstance(workDir, env);
  const api = apiClient(instance.httpUrl);
  const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env);
  expect(created.code).toBe(0);
  for (const username of ['alice', 'bob', 'carol']) {
    const made = await api.request('POST', '/api/v1/admin/users', {
      headers: root,
      body: { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false },
    });
    expect(made.status).toBe(201);
  }
  return { database, workDir, instance, api };
}

async function createRepo(api: ApiClient, owner: string, name: string, isPrivate = false): Promise<ApiRepo> {
  const res = await api.request<ApiRepo>('POST', '/api/v1/user/repos', { headers: as(owner), body: { name, private: isPrivate } });
  expect([name, res.status]).toEqual([name, 201]);
  return res.body;
}

describe('stars and watches through the gateway', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;

  const repo = (owner: string, name: string, headers?: Record<string, string>) => api.request<ApiRepo>('GET', `/api/v1/repos/${owner}/${name}`, { headers });
  const names = (repos: ApiRepo[]) => repos.map((r) => r.full_name).sort();

  beforeAll(async () => {
    ({ database, workDir, instance, api } = await startWithUsers('e2e_stars'));
    await createRepo(api, 'alice', 'pub');
    await createRepo(api, 'alice', 'secret', true);
    await createRepo(api, 'bob', 'tools');
    await createRepo(api, 'bob', 'notes');
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  describe('starring', () => {
    it('is idempotent and counted in stars_count', async () => {
      for (let i = 0; i < 2; i++) expect((await api.request('PUT', '/api/v1/user/starred/alice/pub', { headers: as('bob') })).status).toBe(204);
      expect((await api.request('GET', '/api/v1/user/starred/alice/pub', { headers: as('bob') })).status).toBe(204);
      expect((await repo('alice', 'pub')).body.stars_count).toBe(1);

      for (let i = 0; i < 2; i++) expect((await api.request('DELETE', '/api/v1/user/starred/alice/pub', { headers: as('bob') })).status).toBe(204);
      const check = await api.request<{ message: string }>('GET', '/api/v1/user/starred/alice/pub', { headers: as('bob') });
      expect(check.status).toBe(404);
      expect((await repo('alice', 'pub')).body.stars_count).toBe(0);
    });

    it('needs a signed-in user, and a repository the user may read', async () => {
      expect((await api.request('PUT', '/api/v1/user/starred/alice/pub')).status).toBe(401);
      expect((await api.request('GET', '/api/v1/user/starred')).status).toBe(401);
      expect((await api.request('PUT', '/api/v1/user/starred/alice/secret', { headers: as('bob') })).status).toBe(404);
      expect((await api.request('PUT', '/api/v1/user/starred/alice/nothing-here', { headers: as('bob') })).status).toBe(404);
      expect((await repo('alice', 'secret', as('alice'))).body.stars_count).toBe(0);
    });

    it('lists stargazers oldest first, paged with Link and X-Total-Count', async () => {
      for (const user of ['carol', 'bob', 'alice']) {
        expect((await api.request('PUT', '/api/v1/user/starred/bob/tools', { headers: as(user) })).status).toBe(204);
      }
      const first = await api.request<ApiUser[]>('GET', '/api/v1/repos/bob/tools/stargazers?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.map((u) => u.login)).toEqual(['carol', 'bob']);
      expect(first.headers.get('x-total-count')).toBe('3');
      expect(first.headers.get('link')).toContain('rel="next"');
      expect(first.headers.get('link')).toContain('page=2');
      const second = await api.request<ApiUser[]>('GET', '/api/v1/repos/bob/tools/stargazers?limit=2&page=2');
      expect(second.body.map((u) => u.login)).toEqual(['alice']);
      expect(second.headers.get('x-total-count')).toBe('3');
      expect((await repo('bob', 'tools')).body.stars_count).toBe(3);
    });

    it("lists a user's starred repositories, paged, private ones only to themselves", async () => {
      await api.request('PUT', '/api/v1/user/starred/alice/secret', { headers: as('alice') });
      await api.request('PUT', '/api/v1/user/starred/alice/pub', { headers: as('alice') });
      // alice starred bob/tools above: three in all.
      const mine = await api.request<ApiRepo[]>('GET', '/api/v1/user/starred', { headers: as('alice') });
      expect(mine.status).toBe(200);
      expect(names(mine.body)).toEqual(['alice/pub', 'alice/secret', 'bob/tools']);
      expect(mine.headers.get('x-total-count')).toBe('3');

      const page = await api.request<ApiRepo[]>('GET', '/api/v1/user/starred?limit=2', { headers: as('alice') });
      expect(page.body).toHaveLength(2);
      expect(page.headers.get('x-total-count')).toBe('3');
      expect(page.headers.get('link')).toContain('rel="next"');
      const rest = await api.request<ApiRepo[]>('GET', '/api/v1/user/starred?limit=2&page=2', { headers: as('alice') });
      expect(names([...page.body, ...rest.body])).toEqual(['alice/pub', 'alice/secret', 'bob/tools']);

      for (const viewer of ['bob', 'root']) {
        const theirs = await api.request<ApiRepo[]>('GET', '/api/v1/users/alice/starred', { headers: viewer === 'root' ? root : as(viewer) });
        expect([viewer, theirs.status, names(theirs.body)]).toEqual([viewer, 200, ['alice/pub', 'bob/tools']]);
        expect(theirs.headers.get('x-total-count')).toBe('2');
      }
      const self = await api.request<ApiRepo[]>('GET', '/api/v1/users/alice/starred', { headers: as('alice') });
      expect(names(self.body)).toEqual(['alice/pub', 'alice/secret', 'bob/tools']);
      expect((await api.request('GET', '/api/v1/users/alice/starred')).status).toBe(401);
      expect((await api.request('GET', '/api/v1/users/nobody-at-all/starred', { headers: as('bob') })).status).toBe(404);
    });

    it("hides a private repository's stargazers from those who may not read it", async () => {
      expect((await api.request('GET', '/api/v1/repos/alice/secret/stargazers', { headers: as('bob') })).status).toBe(404);
      expect((await api.request('GET', '/api/v1/repos/alice/secret/stargazers')).status).toBe(404);
      const own = await api.request<ApiUser[]>('GET', '/api/v1/repos/alice/secret/stargazers', { headers: as('alice') });
      expect(own.body.map((u) => u.login)).toEqual(['alice']);
    });
  });

  describe('watching', () => {
    it('starts with the creator watching a new repository', async () => {
      await waitFor('bob watching bob/notes', async () => ((await repo('bob', 'notes')).body.watchers_count === 1 ? true : undefined), 15_000);
      const watchers = await api.request<ApiUser[]>('GET', '/api/v1/repos/bob/notes/subscribers');
      expect(watchers.body.map((u) => u.login)).toEqual(['bob']);
      expect(watchers.headers.get('x-total-count')).toBe('1');
      expect((await api.request<WatchInfo>('GET', '/api/v1/repos/bob/notes/subscription', { headers: as('bob') })).status).toBe(200);
    });

    it('is idempotent, answers WatchInfo and shows in watchers_count', async () => {
      await waitFor('alice watching alice/pub', async () => ((await repo('alice', 'pub')).body.watchers_count === 1 ? true : undefined), 15_000);
      expect((await api.request('GET', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') })).status).toBe(404);

      const first = await api.request<WatchInfo>('PUT', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') });
      const again = await api.request<WatchInfo>('PUT', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') });
      expect(first.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(first.body).toMatchObject({ subscribed: true, ignored: false, reason: null });
      expect(first.body.repository_url).toMatch(/\/api\/v1\/repos\/alice\/pub$/);
      expect(first.body.url).toBe(`${first.body.repository_url}/subscription`);
      const check = await api.request<WatchInfo>('GET', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') });
      expect(check.body).toEqual(first.body);
      expect((await repo('alice', 'pub')).body.watchers_count).toBe(2);

      const watchers = await api.request<ApiUser[]>('GET', '/api/v1/repos/alice/pub/subscribers?limit=1');
      expect(watchers.body.map((u) => u.login)).toEqual(['alice']);
      expect(watchers.headers.get('x-total-count')).toBe('2');
      expect(watchers.headers.get('link')).toContain('rel="next"');

      for (let i = 0; i < 2; i++) expect((await api.request('DELETE', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') })).status).toBe(204);
      expect((await api.request('GET', '/api/v1/repos/alice/pub/subscription', { headers: as('carol') })).status).toBe(404);
      expect((await repo('alice', 'pub')).body.watchers_count).toBe(1);
    });

    it('needs a signed-in user, and a repository the user may read', async () => {
      expect((await api.request('GET', '/api/v1/repos/alice/pub/subscription')).status).toBe(401);
      expect((await api.request('PUT', '/api/v1/repos/alice/pub/subscription')).status).toBe(401);
      expect((await api.request('PUT', '/api/v1/repos/alice/secret/subscription', { headers: as('bob') })).status).toBe(404);
      expect((await api.request('GET', '/api/v1/repos/alice/secret/subscribers', { headers: as('bob') })).status).toBe(404);
    });

    it("lists a user's watched repositories, private ones only to themselves", async () => {
      await waitFor('alice watching alice/secret', async () => {
        const own = await api.request<ApiRepo[]>('GET', '/api/v1/user/subscriptions', { headers: as('alice') });
        return own.body.length === 2 ? own : undefined;
      }, 15_000);
      const mine = await api.request<ApiRepo[]>('GET', '/api/v1/user/subscriptions', { headers: as('alice') });
      expect(names(mine.body)).toEqual(['alice/pub', 'alice/secret']);
      expect(mine.headers.get('x-total-count')).toBe('2');
      const theirs = await api.request<ApiRepo[]>('GET', '/api/v1/users/alice/subscriptions', { headers: as('bob') });
      expect(names(theirs.body)).toEqual(['alice/pub']);
      expect(theirs.headers.get('x-total-count')).toBe('1');
    });
  });

  it("takes a deleted repository's stars and watches with it", async () => {
    await createRepo(api, 'carol', 'short-lived');
    expect((await api.request('PUT', '/api/v1/user/starred/carol/short-lived', { headers: as('bob') })).status).toBe(204);
    expect((await api.request('PUT', '/api/v1/repos/carol/short-lived/subscription', { headers: as('bob') })).status).toBe(200);
    expect((await api.request('DELETE', '/api/v1/repos/carol/short-lived', { headers: as('carol') })).status).toBe(204);
    const starred = await api.request<ApiRepo[]>('GET', '/api/v1/user/starred', { headers: as('bob') });
    expect(names(starred.body)).toEqual(['bob/tools']);
    expect(starred.headers.get('x-total-count')).toBe('1');

    // A new repository under the old name starts with none.
    const again = await createRepo(api, 'carol', 'short-lived');
    expect(again.stars_count).toBe(0);
    expect((await api.request('GET', '/api/v1/user/starred/carol/short-lived', { headers: as('bob') })).status).toBe(404);
  });
});

describe('with [repository] DISABLE_STARS', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;

  beforeAll(async () => {
    ({ database, workDir, instance, api } = await startWithUsers('e2e_nostars', { CAIRN__repository__DISABLE_STARS: 'true' }));
    await createRepo(api, 'alice', 'pub');
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  it.each([
    ['PUT', '/api/v1/user/starred/alice/pub'],
    ['GET', '/api/v1/user/starred/alice/pub'],
    ['DELETE', '/api/v1/user/starred/alice/pub'],
    ['GET', '/api/v1/user/starred'],
    ['GET', '/api/v1/users/alice/starred'],
    ['GET', '/api/v1/repos/alice/pub/stargazers'],
  ])('%s %s answers 403', async (method, path) => {
    const res = await api.request<{ message: string }>(method, path, { headers: as('bob') });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('stars disabled by administrator');
  });

  it('leaves watching alone', async () => {
    expect((await api.request('PUT', '/api/v1/repos/alice/pub/subscription', { headers: as('bob') })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/user/subscriptions', { headers: as('bob') })).status).toBe(200);
  });
});
