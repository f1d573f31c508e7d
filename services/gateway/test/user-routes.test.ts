/**
 * The users routes of issue 4 over in-memory accounts: what the gateway asks accounts (the viewer, the
 * parameters), what it answers (shapes, headers, statuses), the renamed-account redirect and the explore
 * settings. Who may see whom is accounts' (services/accounts tests); the fake applies the same rules roughly.
 */
import { expectExactGiteaShape, giteaApi } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { type TestGateway, basic, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

function seed() {
  const accounts = new FakeAccounts();
  const root = accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const alice = accounts.addUser('alice', { fullName: 'Alice A.', password: 'alice-password', theme: 'gitea-dark', language: 'fr-FR' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const lim = accounts.addUser('lim', { visibility: 'limited' });
  const hid = accounts.addUser('hid', { visibility: 'private' });
  const token = (id: number, scopes = ['all']) => tokenAuth(accounts.addToken(id, `t${Math.random()}`, scopes).secret);
  // repos answers every owner's list with nothing unless a test says otherwise.
  const repos = new FakeRepos();
  repos.answers.listOwnerRepositories = async () => ({ repositories: [], total: 0 });
  accounts.clients.repos = repos.client;
  accounts.clients.stars = repos.stars;
  accounts.clients.issues = repos.issues;
  return { accounts, repos, root, alice, bob, lim, hid, token };
}

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Checks the answer against Gitea's description of the route, as the e2e client does. */
async function described(method: string, path: string, res: Response): Promise<{ status: number; body: unknown }> {
  const result = await answer(res);
  giteaApi.expectResponse({ method, path, status: result.status, body: result.body });
  return result;
}

describe('GET /users/search', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it("answers {ok, data} with the paging headers, asking accounts as the caller", async () => {
    const path = '/api/v1/users/search?q=%20o%20&uid=0&limit=1&page=2';
    const res = await gw.fetch(path, { headers: { Authorization: s.token(s.bob.id) } });
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.headers.get('link')).toBe(
      '<http://localhost:3000/api/v1/users/search?limit=1&page=1&q=+o+&uid=0>; rel="first",<http://localhost:3000/api/v1/users/search?limit=1&page=1&q=+o+&uid=0>; rel="prev"',
    );
    const { status, body } = await described('GET', path, res);
    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, data: [expect.objectContaining({ login: 'root' })] });
    expectExactGiteaShape('User', (body as { data: unknown[] }).data[0]);
    expect(s.accounts.requests.searchUsers.at(-1)).toEqual({
      viewer: { userId: s.bob.id, isAdmin: false, isRestricted: false },
      keyword: 'o',
      uid: 0,
      page: { page: 2, limit: 1 },
      publicOnly: false,
    });
  });

  it('asks anonymously for anonymous callers, and limits public-only tokens to public users', async () => {
    await gw.fetch('/api/v1/users/search?uid=7');
    expect(s.accounts.requests.searchUsers.at(-1)).toMatchObject({ viewer: undefined, uid: 7, keyword: '' });
    await gw.fetch('/api/v1/users/search', { headers: { Authorization: s.token(s.bob.id, ['public-only', 'read:user']) } });
    expect(s.accounts.requests.searchUsers.at(-1)).toMatchObject({ publicOnly: true });
  });

  it('needs the user scope', async () => {
    const res = await gw.fetch('/api/v1/users/search', { headers: { Authorization: s.token(s.bob.id, ['read:repository']) } });
    expect(await answer(res)).toEqual({
      status: 403,
      body: { message: 'token does not have at least one of required scope(s), required=[read:user], token scope=read:repository', url: URL_KEY },
    });
  });
});

describe('explore settings', () => {
  it('[service.explore] REQUIRE_SIGNIN_VIEW: anonymous callers get 401 on search, lookup and repositories', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true' } });
    try {
      for (const path of ['/api/v1/users/search', '/api/v1/users/alice', '/api/v1/users/alice/repos']) {
        expect(await answer(await gw.fetch(path))).toEqual({ status: 401, body: { message: 'you must be signed in to search for users', url: URL_KEY } });
        expect((await gw.fetch(path, { headers: { Authorization: s.token(s.bob.id) } })).status).toBe(200);
      }
    } finally {
      await gw.close();
    }
  });

  it('DISABLE_USERS_PAGE: search answers 404 (after the sign-in check), lookups stay', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__ui_0X2E_explore__DISABLE_USERS_PAGE: 'true' } });
    try {
      expect(await answer(await gw.fetch('/api/v1/users/search'))).toEqual({ status: 404, body: { errors: null, message: 'not found', url: URL_KEY } });
      expect(s.accounts.calls.searchUsers).toBeUndefined();
      expect((await gw.fetch('/api/v1/users/alice')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('GET /users/{username} and /users/{username}/repos', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it('looks the user up as the caller, in one call', async () => {
    const before = s.accounts.calls.getUser ?? 0;
    await gw.fetch('/api/v1/users/alice', { headers: { Authorization: s.token(s.bob.id) } });
    expect(s.accounts.calls.getUser).toBe(before + 1);
    expect(s.accounts.requests.getUser.at(-1)).toEqual({ username: 'alice', viewer: { userId: s.bob.id, isAdmin: false, isRestricted: false } });
    expect(s.accounts.calls.resolveName).toBeUndefined();
  });

  it('lists what repos answers for the owner and the caller, with the paging headers, for users the caller may see', async () => {
    const res = await gw.fetch('/api/v1/users/alice/repos');
    expect(res.headers.get('x-total-count')).toBe('0');
    expect(res.headers.get('link')).toBeNull();
    expect(await described('GET', '/api/v1/users/alice/repos', res)).toEqual({ status: 200, body: [] });
    expect(s.repos.calls('listOwnerRepositories').at(-1)).toEqual({ viewer: undefined, ownerId: s.alice.id, page: { page: 1, limit: 30 }, publicOnly: false });

    const demo = repository(7, 'alice', 'demo', { ownerId: s.alice.id });
    s.repos.answers.listOwnerRepositories = async () => ({ repositories: [{ repository: demo, permission: permission('read') }], total: 2 });
    try {
      const page = await gw.fetch('/api/v1/users/alice/repos?limit=1', { headers: { Authorization: s.token(s.bob.id) } });
      expect(page.headers.get('x-total-count')).toBe('2');
      expect(page.headers.get('link')).toContain('rel="next"');
      const { body } = await described('GET', '/api/v1/users/alice/repos?limit=1', page);
      expect(body).toEqual([expect.objectContaining({ full_name: 'alice/demo', owner: expect.objectContaining({ login: 'alice' }) })]);
      expect(s.repos.calls('listOwnerRepositories').at(-1)).toEqual({
        viewer: { userId: s.bob.id, isAdmin: false, isRestricted: false },
        ownerId: s.alice.id,
        page: { page: 1, limit: 1 },
        publicOnly: false,
      });
    } finally {
      s.repos.answers.listOwnerRepositories = async () => ({ repositories: [], total: 0 });
    }
    expect(await answer(await gw.fetch('/api/v1/users/lim/repos'))).toEqual({
      status: 404,
      body: { message: 'user redirect does not exist [name: lim]', url: URL_KEY },
    });
    expect((await gw.fetch('/api/v1/users/lim/repos', { headers: { Authorization: s.token(s.bob.id) } })).status).toBe(200);
  });

  it('needs the user and the repository scope for repositories, checked in that order', async () => {
    const onlyUser = await gw.fetch('/api/v1/users/alice/repos', { headers: { Authorization: s.token(s.bob.id, ['read:user']) } });
    expect(await answer(onlyUser)).toMatchObject({ status: 403, body: { message: expect.stringContaining('required=[read:repository]') } });
    const onlyRepo = await gw.fetch('/api/v1/users/alice/repos', { headers: { Authorization: s.token(s.bob.id, ['read:repository']) } });
    expect(await answer(onlyRepo)).toMatchObject({ status: 403, body: { message: expect.stringContaining('required=[read:user]') } });
    const both = await gw.fetch('/api/v1/users/alice/repos', { headers: { Authorization: s.token(s.bob.id, ['read:user', 'read:repository']) } });
    expect(both.status).toBe(200);
  });

  it('keeps public-only tokens to public users', async () => {
    const publicOnly = s.token(s.bob.id, ['public-only', 'read:user']);
    expect((await gw.fetch('/api/v1/users/alice', { headers: { Authorization: publicOnly } })).status).toBe(200);
    expect(await answer(await gw.fetch('/api/v1/users/lim', { headers: { Authorization: publicOnly } }))).toEqual({
      status: 403,
      body: { message: 'token scope is limited to public users', url: URL_KEY },
    });
  });
});

describe('renamed users', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
    const carol = s.accounts.addUser('carol');
    await s.accounts.clients.users.renameUser({ id: carol.id, newName: 'caroline', actorId: 0 });
    const hidden = s.accounts.addUser('ghostly', { visibility: 'private' });
    await s.accounts.clients.users.renameUser({ id: hidden.id, newName: 'phantom', actorId: 0 });
  });
  afterAll(() => gw.close());

  it('answers 307 from the old name with the same path and query under the new one', async () => {
    for (const [path, location] of [
      ['/api/v1/users/carol', '/api/v1/users/caroline'],
      ['/api/v1/users/CAROL/repos?x=1&y=%2F', '/api/v1/users/caroline/repos?x=1&y=%2F'],
      ['/api/v1/users/carol/tokens', '/api/v1/users/caroline/tokens'],
    ]) {
      const res = await gw.fetch(path, { redirect: 'manual' });
      expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 307, location });
    }
    const res = await gw.fetch('/api/v1/users/carol', { redirect: 'manual' });
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe('<a href="/api/v1/users/caroline">Temporary Redirect</a>.\n\n');
  });

  it('redirects any method, admin routes included, after the auth checks', async () => {
    const res = await gw.fetch('/api/v1/admin/users/carol/rename', { ...jsonBody('POST', {}, { Authorization: basic('root', 'root-password') }), redirect: 'manual' });
    expect([res.status, res.headers.get('location'), await res.text()]).toEqual([307, '/api/v1/admin/users/caroline/rename', '']);
    const anonymous = await gw.fetch('/api/v1/admin/users/carol/rename', { method: 'POST', redirect: 'manual' });
    expect(anonymous.status).toBe(401);
  });

  it('answers 404 for an old name of a user the caller may not see', async () => {
    expect(await answer(await gw.fetch('/api/v1/users/ghostly', { redirect: 'manual' }))).toEqual({
      status: 404,
      body: { message: 'user redirect does not exist [name: ghostly]', url: URL_KEY },
    });
    const byAdmin = await gw.fetch('/api/v1/users/ghostly', { headers: { Authorization: basic('root', 'root-password') }, redirect: 'manual' });
    expect([byAdmin.status, byAdmin.headers.get('location')]).toEqual([307, '/api/v1/users/phantom']);
  });

  it('keeps the path below a ROOT_URL with a sub-path', async () => {
    const sub = await startTestGateway({ accounts: s.accounts, env: { CAIRN__server__ROOT_URL: 'https://example.org/git/' } });
    try {
      const res = await sub.fetch('/api/v1/users/carol?limit=2', { redirect: 'manual' });
      expect([res.status, res.headers.get('location')]).toEqual([307, '/git/api/v1/users/caroline?limit=2']);
    } finally {
      await sub.close();
    }
  });
});

describe('GET/PATCH /user/settings', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());
  const ALICE = basic('alice', 'alice-password');

  it("answers the signed-in user's settings as one UserSettings object", async () => {
    const res = await gw.fetch('/api/v1/user/settings', { headers: { Authorization: ALICE } });
    const body = (await res.json()) as Record<string, unknown>;
    // Gitea's UserSettings plus Cairn's one addition (docs/api.md, Departures): the e-mail notification preference.
    const { email_notifications_preference: preference, ...gitea } = body;
    expectExactGiteaShape('UserSettings', gitea);
    expect(preference).toBe('enabled');
    expect(gitea).toEqual({
      full_name: 'Alice A.',
      website: '',
      description: '',
      location: '',
      language: 'fr-FR',
      theme: 'gitea-dark',
      diff_view_style: '',
      hide_email: false,
      hide_activity: false,
    });
    expect((await gw.fetch('/api/v1/user/settings')).status).toBe(401);
  });

  it('changes only the fields it is given', async () => {
    const res = await gw.fetch('/api/v1/user/settings', jsonBody('PATCH', { hide_email: true, location: 'Oxford' }, { Authorization: ALICE }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ hide_email: true, location: 'Oxford', full_name: 'Alice A.', theme: 'gitea-dark' });
    const request = s.accounts.requests.updateUser.at(-1) as Record<string, unknown>;
    expect(Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined))).toEqual({
      id: s.alice.id,
      actorId: s.alice.id,
      keepEmailPrivate: true,
      location: 'Oxford',
    });
    // The cached sign-in is forgotten at once, so /user/settings and /user see the change.
    expect(await (await gw.fetch('/api/v1/user/settings', { headers: { Authorization: ALICE } })).json()).toMatchObject({ hide_email: true });
  });

  it("checks the body as Gitea's binding does (422)", async () => {
    const cases: Array<[unknown, string]> = [
      [{ full_name: 5 }, '[]: json: cannot unmarshal number into Go struct field UserSettingsOptions.full_name of type string'],
      [{ hide_email: 'yes' }, '[]: json: cannot unmarshal string into Go struct field UserSettingsOptions.hide_email of type bool'],
      [{ website: 'not a url' }, '[Website]: Url'],
      [{ location: 'x'.repeat(51) }, '[Location]: MaxSize'],
    ];
    for (const [body, message] of cases) {
      const res = await gw.fetch('/api/v1/user/settings', jsonBody('PATCH', body, { Authorization: ALICE }));
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 422, body: { message, url: URL_KEY } });
    }
  });

  it('is closed to public-only tokens', async () => {
    const res = await gw.fetch('/api/v1/user/settings', { headers: { Authorization: s.token(s.alice.id, ['public-only', 'all']) } });
    expect(await answer(res)).toEqual({ status: 403, body: { message: 'this endpoint is not available for public-only tokens', url: URL_KEY } });
  });
});

describe('site administration', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());
  const ROOT = basic('root', 'root-password');

  it('GET /admin/users passes the filters on and pages the answer', async () => {
    const path = '/api/v1/admin/users?q=%20o%20&visibility=public&is_active=true&is_admin=0&is_restricted=on&is_prohibit_login=&source_id=4&login_name=x&sort=created&order=desc&limit=1';
    const res = await gw.fetch(path, { headers: { Authorization: ROOT } });
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.headers.get('link')).toContain('rel="next"');
    const { status, body } = await described('GET', path, res);
    expect([status, (body as unknown[]).length]).toEqual([200, 1]);
    expect(s.accounts.requests.listUsers.at(-1)).toEqual({
      viewer: { userId: s.root.id, isAdmin: true, isRestricted: false },
      keyword: 'o',
      visibility: 'public',
      isActive: true,
      isAdmin: false,
      isRestricted: true,
      isProhibitLogin: undefined,
      isTwoFactorEnabled: undefined,
      sourceId: 4,
      loginName: 'x',
      sort: 'created',
      order: 'desc',
      publicOnly: false,
      page: { page: 1, limit: 1 },
    });
  });

  it('GET /admin/users answers 422 for what accounts refuses, 403 to others', async () => {
    expect(await answer(await gw.fetch('/api/v1/admin/users?sort=email', { headers: { Authorization: ROOT } }))).toEqual({
      status: 422,
      body: { message: 'Invalid sort and order parameters', url: URL_KEY },
    });
    expect((await gw.fetch('/api/v1/admin/users', { headers: { Authorization: basic('bob', 'bob-password') } })).status).toBe(403);
  });

  it('POST /admin/users/{username}/rename renames (204) and answers 422 for bad names', async () => {
    const rename = (name: string, body: unknown, auth = ROOT) =>
      gw.fetch(`/api/v1/admin/users/${name}/rename`, jsonBody('POST', body, { Authorization: auth }));
    expect((await rename('bob', { new_username: 'robert' })).status).toBe(204);
    expect(s.accounts.requests.renameUser.at(-1)).toEqual({ id: s.bob.id, newName: 'robert', actorId: s.root.id });
    const cases: Array<[unknown, string]> = [
      [{}, '[NewName]: Required'],
      [{ new_username: '' }, '[NewName]: Required'],
      [{ new_username: 'ALICE' }, 'user already exists [name: ALICE]'],
      [{ new_username: 'api' }, 'name is reserved [name: api]'],
      [{ new_username: 7 }, '[]: json: cannot unmarshal number into Go struct field RenameUserOption.new_username of type string'],
    ];
    for (const [body, message] of cases) {
      const res = await rename('robert', body);
      expect({ body, status: res.status, answer: await res.json() }).toEqual({ body, status: 422, answer: { message, url: URL_KEY } });
    }
    expect((await rename('nobody', { new_username: 'x1' })).status).toBe(404);
    expect((await rename('robert', { new_username: 'x2' }, basic('alice', 'alice-password'))).status).toBe(403);
  });
});
