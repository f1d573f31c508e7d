/**
 * Users end to end (issue 4): the built supervisor on a PostgreSQL test database with the in-process bus,
 * driven over HTTP through the validating client. Who sees which user through lookup, repositories and search
 * (results, X-Total-Count and e-mail fields), hidden e-mails, renames and their redirects, the explore
 * settings and bad input.
 */
import { createTestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface ApiUser {
  id: number;
  login: string;
  email: string;
  is_admin: boolean;
  active: boolean;
  language: string;
}

interface SearchResults {
  ok: boolean;
  data: ApiUser[];
}

const PASSWORD = 'matrix-pass-123';

/** One instance on its own database and work dir, with a CLI-made site administrator `root`. */
async function startCairn(name: string, env: Record<string, string> = {}) {
  const database = await createTestDatabase(name);
  const workDir = makeWorkDir();
  const fullEnv = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0', ...env });
  let instance: Instance | undefined;
  try {
    instance = await startInstance(workDir, fullEnv);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', PASSWORD, '--email', 'root@example.com', '--admin'], fullEnv);
    expect(created.code).toBe(0);
  } catch (error) {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database.drop();
    throw error;
  }
  const running = instance;
  return {
    api: apiClient(running.httpUrl),
    stop: async () => {
      await cleanUpWorkDir(workDir, [running]);
      await database.drop();
    },
  };
}

const ADMIN = basicAuth('root', PASSWORD);

async function createUser(api: ApiClient, username: string, fields: Record<string, unknown> = {}): Promise<ApiUser> {
  const res = await api.request<ApiUser>('POST', '/api/v1/admin/users', {
    headers: ADMIN,
    body: { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false, ...fields },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('users through the gateway', () => {
  let cairn: Awaited<ReturnType<typeof startCairn>>;
  let api: ApiClient;
  const users: Record<string, ApiUser> = {};
  const viewers: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    cairn = await startCairn('e2e_users');
    api = cairn.api;
    users.pub = await createUser(api, 'pub', { full_name: 'Matrix Public' });
    users.lim = await createUser(api, 'lim', { full_name: 'Matrix Limited', visibility: 'limited' });
    users.priv = await createUser(api, 'priv', { full_name: 'Matrix Private', visibility: 'private' });
    users.plain = await createUser(api, 'plain');
    users.res = await createUser(api, 'res', { restricted: true });
    viewers.anonymous = {};
    viewers.plain = basicAuth('plain', PASSWORD);
    viewers.restricted = basicAuth('res', PASSWORD);
    viewers.admin = ADMIN;
  });

  afterAll(async () => {
    await cairn?.stop();
  });

  const get = <T = unknown>(path: string, viewer: string) => api.request<T>('GET', path, { headers: viewers[viewer] });

  // viewer → [public, limited, private] visible
  const VISIBLE: Record<string, [boolean, boolean, boolean]> = {
    anonymous: [true, false, false],
    plain: [true, true, false],
    restricted: [true, false, false],
    admin: [true, true, true],
  };
  const TARGETS = ['pub', 'lim', 'priv'];

  it.each(Object.entries(VISIBLE))('GET /users/{u} and /users/{u}/repos for %s', async (viewer, expected) => {
    for (const [i, target] of TARGETS.entries()) {
      const lookup = await get<ApiUser>(`/api/v1/users/${target}`, viewer);
      const repos = await get<unknown[]>(`/api/v1/users/${target}/repos`, viewer);
      if (expected[i]) {
        expect([target, lookup.status, lookup.body.login]).toEqual([target, 200, target]);
        expect([target, repos.status, repos.body, repos.headers.get('x-total-count')]).toEqual([target, 200, [], '0']);
      } else {
        // Hidden exactly as a user that does not exist.
        const missing = await get(`/api/v1/users/no-such-${target}`, viewer);
        expect([target, lookup.status, repos.status]).toEqual([target, 404, 404]);
        expect(lookup.body).toEqual({ ...(missing.body as object), message: `user redirect does not exist [name: ${target}]` });
      }
    }
  });

  it.each([
    ['anonymous', ['pub']],
    ['plain', ['lim', 'pub']],
    ['restricted', ['pub']],
    ['admin', ['lim', 'priv', 'pub']],
  ])('GET /users/search for %s: results and X-Total-Count hold only what may be seen', async (viewer, expected) => {
    const all = await get<SearchResults>('/api/v1/users/search?q=matrix', viewer);
    expect(all.status).toBe(200);
    expect(all.body.ok).toBe(true);
    expect(all.body.data.map((u) => u.login)).toEqual(expected);
    expect(all.headers.get('x-total-count')).toBe(String(expected.length));

    const firstPage = await get<SearchResults>('/api/v1/users/search?q=matrix&limit=1', viewer);
    expect(firstPage.body.data).toHaveLength(1);
    expect(firstPage.headers.get('x-total-count')).toBe(String(expected.length));
    expect(firstPage.headers.get('link') !== null).toBe(expected.length > 1);

    // By id: a hidden user is not there, and is not counted.
    const byId = await get<SearchResults>(`/api/v1/users/search?uid=${users.priv.id}`, viewer);
    expect([byId.body.data.length, byId.headers.get('x-total-count')]).toEqual(viewer === 'admin' ? [1, '1'] : [0, '0']);
  });

  it("never shows an address it must not: placeholders for anonymous callers, real ones to others, nothing of hidden users", async () => {
    const placeholder = (user: ApiUser) => `${user.id}+${user.login}@noreply.localhost`;
    for (const viewer of ['anonymous', 'plain', 'restricted']) {
      const found = await get<SearchResults>('/api/v1/users/search?q=matrix', viewer);
      expect(found.body.data.length).toBeGreaterThan(0);
      for (const user of found.body.data) {
        expect([viewer, user.email]).toEqual([viewer, viewer === 'anonymous' ? placeholder(user) : `${user.login}@example.com`]);
        expect([user.is_admin, user.active, user.language]).toEqual([false, false, '']);
      }
      const everything = JSON.stringify([found.body, (await get('/api/v1/users/search?q=priv', viewer)).body]);
      expect(everything).not.toContain('priv@example.com');
      // Searching by the hidden user's address finds nothing either.
      expect((await get<SearchResults>('/api/v1/users/search?q=priv%40example', viewer)).headers.get('x-total-count')).toBe('0');
    }
    // An address is matched only where it could be read.
    expect((await get<SearchResults>('/api/v1/users/search?q=pub%40example', 'anonymous')).body.data).toEqual([]);
    expect((await get<SearchResults>('/api/v1/users/search?q=pub%40example', 'plain')).body.data.map((u) => u.login)).toEqual(['pub']);
  });

  it('hides an e-mail with PATCH /user/settings: others see the placeholder, the user and admins the address', async () => {
    const own = basicAuth('pub', PASSWORD);
    const patched = await api.request<Record<string, unknown>>('PATCH', '/api/v1/user/settings', { headers: own, body: { hide_email: true } });
    expect(patched).toMatchObject({ status: 200, body: { hide_email: true, full_name: 'Matrix Public' } });
    expect((await api.request('GET', '/api/v1/user/settings', { headers: own })).body).toMatchObject({ hide_email: true });

    const placeholder = `${users.pub.id}+pub@noreply.localhost`;
    expect((await get<ApiUser>('/api/v1/users/pub', 'plain')).body.email).toBe(placeholder);
    expect((await get<ApiUser>('/api/v1/users/pub', 'restricted')).body.email).toBe(placeholder);
    expect((await get<SearchResults>('/api/v1/users/search?q=matrix%20public', 'plain')).body.data[0].email).toBe(placeholder);
    expect((await get<SearchResults>('/api/v1/users/search?q=pub%40example', 'plain')).body.data).toEqual([]);
    expect((await get<ApiUser>('/api/v1/users/pub', 'admin')).body.email).toBe('pub@example.com');
    expect((await api.request<ApiUser>('GET', '/api/v1/users/pub', { headers: own })).body.email).toBe('pub@example.com');
    expect((await api.request<ApiUser>('GET', '/api/v1/user', { headers: own })).body.email).toBe('pub@example.com');
  });

  it('refuses PATCH /user/settings bodies of the wrong types (422) and anonymous callers (401)', async () => {
    const own = basicAuth('plain', PASSWORD);
    for (const [body, message] of [
      [{ hide_email: 'yes' }, '[]: json: cannot unmarshal string into Go struct field UserSettingsOptions.hide_email of type bool'],
      [{ full_name: 5 }, '[]: json: cannot unmarshal number into Go struct field UserSettingsOptions.full_name of type string'],
      [{ website: 'not a url' }, '[Website]: Url'],
    ] as const) {
      expect(await api.request('PATCH', '/api/v1/user/settings', { headers: own, body })).toMatchObject({ status: 422, body: { message } });
    }
    expect((await api.request('PATCH', '/api/v1/user/settings', { body: { hide_email: true } })).status).toBe(401);
  });

  it('lists every user for site admins only (GET /admin/users)', async () => {
    const listed = await api.request<ApiUser[]>('GET', '/api/v1/admin/users?limit=2&sort=id', { headers: ADMIN });
    expect(listed.status).toBe(200);
    expect(listed.body.map((u) => u.login)).toEqual(['root', 'pub']);
    expect(Number(listed.headers.get('x-total-count'))).toBeGreaterThanOrEqual(6);
    expect((await api.request('GET', '/api/v1/admin/users?visibility=hidden', { headers: ADMIN })).status).toBe(422);
    expect((await get('/api/v1/admin/users', 'plain')).status).toBe(403);
  });

  it('renames: the old name answers 307 to the new one (query kept), and is free for someone else', async () => {
    const renamed = await api.request('POST', '/api/v1/admin/users/lim/rename', { headers: ADMIN, body: { new_username: 'lim2' } });
    expect(renamed.status).toBe(204);

    const lookup = await get('/api/v1/users/lim', 'plain');
    expect([lookup.status, lookup.headers.get('location')]).toEqual([307, '/api/v1/users/lim2']);
    const repos = await get('/api/v1/users/lim/repos?x=1', 'plain');
    expect([repos.status, repos.headers.get('location')]).toEqual([307, '/api/v1/users/lim2/repos?x=1']);
    expect((await get<ApiUser>('/api/v1/users/lim2', 'plain')).body.id).toBe(users.lim.id);
    // A limited user is no one's business anonymously: nor is where they went.
    expect((await get('/api/v1/users/lim', 'anonymous')).status).toBe(404);

    const newcomer = await createUser(api, 'lim', { email: 'newcomer@example.com' });
    const taken = await get<ApiUser>('/api/v1/users/lim', 'plain');
    expect([taken.status, taken.body.id]).toEqual([200, newcomer.id]);
    expect((await get<ApiUser>('/api/v1/users/lim2', 'plain')).body.id).toBe(users.lim.id);
  });

  it("refuses bad renames with Gitea's 422 messages", async () => {
    const rename = (body: unknown) => api.request('POST', '/api/v1/admin/users/pub/rename', { headers: ADMIN, body });
    for (const [body, message] of [
      [{ new_username: 'api' }, 'name is reserved [name: api]'],
      [{ new_username: 'assets' }, 'name is reserved [name: assets]'],
      [{ new_username: 'admin' }, 'name is reserved [name: admin]'],
      [{ new_username: 'PLAIN' }, 'user already exists [name: PLAIN]'],
      [{ new_username: '' }, '[NewName]: Required'],
      [{}, '[NewName]: Required'],
      [{ new_username: 'has space' }, 'name is invalid [has space]: must be valid alpha or numeric or dash(-_) or dot characters'],
    ] as const) {
      expect(await rename(body)).toMatchObject({ status: 422, body: { message } });
    }
    expect((await api.request('POST', '/api/v1/admin/users/pub/rename', { headers: viewers.plain, body: { new_username: 'x' } })).status).toBe(403);
    expect((await get<ApiUser>('/api/v1/users/pub', 'admin')).body.login).toBe('pub');
  });
});

describe('explore settings', () => {
  let cairn: Awaited<ReturnType<typeof startCairn>>;

  beforeAll(async () => {
    cairn = await startCairn('e2e_explore', {
      CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true',
      CAIRN__ui_0X2E_explore__DISABLE_USERS_PAGE: 'true',
    });
  });

  afterAll(async () => {
    await cairn?.stop();
  });

  it('REQUIRE_SIGNIN_VIEW: anonymous callers get 401 on search, lookup and repositories; signed-in users do not', async () => {
    const expectations: Array<[string, number]> = [
      ['/api/v1/users/root', 200],
      ['/api/v1/users/root/repos', 200],
      // DISABLE_USERS_PAGE: after the sign-in check, the search is not there.
      ['/api/v1/users/search', 404],
    ];
    for (const [path, signedIn] of expectations) {
      const anonymous: ApiResponse = await cairn.api.request('GET', path);
      expect([path, anonymous.status, anonymous.body]).toEqual([
        path,
        401,
        { message: 'you must be signed in to search for users', url: expect.stringMatching(/api\/swagger$/) },
      ]);
      expect([path, (await cairn.api.request('GET', path, { headers: ADMIN })).status]).toEqual([path, signedIn]);
    }
    expect((await cairn.api.request('GET', '/api/v1/version')).status).toBe(200);
  });
});
