/**
 * `GET /users/{username}/heatmap` over in-memory accounts and notifications: the user is resolved as on every
 * `/users/{username}` route (404 when invisible, 307 when renamed), the explore sign-in setting does not apply,
 * notifications is asked with the viewer and accounts' `hide_activity`, and the answer is Gitea's
 * UserHeatmapData list.
 */
import { CairnError } from '@cairn/rpc';
import { FakeAccounts } from './support/fake-accounts';
import { giteaApi } from './support/gitea-schema';
import { type TestGateway, basic, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';
const BUCKETS = [
  { timestamp: 1_718_000_100, contributions: 3 },
  { timestamp: 1_718_086_500, contributions: 1 },
];

function seed() {
  const accounts = new FakeAccounts();
  accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const bob = accounts.addUser('bob', { password: 'bob-password' });
  const quiet = accounts.addUser('quiet', { keepActivityPrivate: true });
  accounts.addUser('lim', { visibility: 'limited' });
  const token = (id: number, scopes = ['all']) => tokenAuth(accounts.addToken(id, `t${Math.random()}`, scopes).secret);
  accounts.activity.buckets = BUCKETS;
  return { accounts, alice, bob, quiet, token };
}

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('GET /users/{username}/heatmap', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
    const carol = s.accounts.addUser('carol');
    await s.accounts.clients.users.renameUser({ id: carol.id, newName: 'caroline', actorId: 0 });
  });
  afterAll(() => gw.close());

  it('answers Gitea’s UserHeatmapData list for an anonymous caller, asking notifications anonymously', async () => {
    const path = '/api/v1/users/alice/heatmap';
    const result = await answer(await gw.fetch(path));
    giteaApi.expectResponse({ method: 'GET', path, status: result.status, body: result.body });
    expect(result).toEqual({ status: 200, body: BUCKETS });
    expect(s.accounts.activity.requests.at(-1)).toEqual({ userId: s.alice.id, viewer: undefined, keepActivityPrivate: false, publicOnly: false });
  });

  it('asks as the signed-in caller, passing accounts’ hide_activity for the user', async () => {
    await gw.fetch('/api/v1/users/quiet/heatmap', { headers: { Authorization: basic('bob', 'bob-password') } });
    expect(s.accounts.activity.requests.at(-1)).toEqual({
      userId: s.quiet.id,
      viewer: { userId: s.bob.id, isAdmin: false, isRestricted: false },
      keepActivityPrivate: true,
      publicOnly: false,
    });
    await gw.fetch('/api/v1/users/alice/heatmap', { headers: { Authorization: basic('alice', 'alice-password') } });
    expect(s.accounts.activity.requests.at(-1)).toMatchObject({ userId: s.alice.id, viewer: { userId: s.alice.id } });
  });

  it('answers an empty list as an empty list', async () => {
    const empty = new FakeAccounts();
    empty.addUser('alice');
    const other = await startTestGateway({ accounts: empty });
    try {
      expect(await answer(await other.fetch('/api/v1/users/alice/heatmap'))).toEqual({ status: 200, body: [] });
    } finally {
      await other.close();
    }
  });

  it('answers 404 for a user that does not exist or that the caller may not see, without asking notifications', async () => {
    const before = s.accounts.activity.requests.length;
    for (const name of ['nobody', 'lim']) {
      expect(await answer(await gw.fetch(`/api/v1/users/${name}/heatmap`))).toEqual({
        status: 404,
        body: { message: `user redirect does not exist [name: ${name}]`, url: URL_KEY },
      });
    }
    expect(s.accounts.activity.requests).toHaveLength(before);
    expect((await gw.fetch('/api/v1/users/lim/heatmap', { headers: { Authorization: s.token(s.bob.id) } })).status).toBe(200);
  });

  it('answers 307 from a renamed user’s old name', async () => {
    const res = await gw.fetch('/api/v1/users/carol/heatmap?x=1', { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([307, '/api/v1/users/caroline/heatmap?x=1']);
  });

  it('needs the user scope, and keeps public-only tokens to public users', async () => {
    const repoOnly = await gw.fetch('/api/v1/users/alice/heatmap', { headers: { Authorization: s.token(s.bob.id, ['read:repository']) } });
    expect(await answer(repoOnly)).toMatchObject({ status: 403, body: { message: expect.stringContaining('required=[read:user]') } });
    const publicOnly = s.token(s.bob.id, ['public-only', 'read:user']);
    expect((await gw.fetch('/api/v1/users/alice/heatmap', { headers: { Authorization: publicOnly } })).status).toBe(200);
    expect(await answer(await gw.fetch('/api/v1/users/lim/heatmap', { headers: { Authorization: publicOnly } }))).toEqual({
      status: 403,
      body: { message: 'token scope is limited to public users', url: URL_KEY },
    });
  });

  it('answers 503 naming notifications when it is unavailable', async () => {
    s.accounts.activity.failure = CairnError.unavailable('notifications is unavailable');
    try {
      expect(await answer(await gw.fetch('/api/v1/users/alice/heatmap'))).toEqual({
        status: 503,
        body: { message: 'notifications is unavailable', url: URL_KEY },
      });
    } finally {
      s.accounts.activity.failure = undefined;
    }
  });

  it('is described in the generated API description', async () => {
    const description = (await (await gw.fetch('/swagger.v1.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(description.paths['/users/{username}/heatmap'].get.operationId).toBe('userGetHeatmapData');
  });
});

describe('heatmap settings', () => {
  it('stays open to anonymous callers under [ui.explore] REQUIRE_SIGNIN_VIEW', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true' } });
    try {
      expect((await gw.fetch('/api/v1/users/alice')).status).toBe(401);
      expect(await answer(await gw.fetch('/api/v1/users/alice/heatmap'))).toEqual({ status: 200, body: BUCKETS });
    } finally {
      await gw.close();
    }
  });

  it('is closed to anonymous callers by the site-wide [service] REQUIRE_SIGNIN_VIEW', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__service__REQUIRE_SIGNIN_VIEW: 'true' } });
    try {
      expect((await gw.fetch('/api/v1/users/alice/heatmap')).status).toBe(403);
      expect((await gw.fetch('/api/v1/users/alice/heatmap', { headers: { Authorization: s.token(s.bob.id) } })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('answers 404 as for an unknown route when [service] ENABLE_USER_HEATMAP is off', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__service__ENABLE_USER_HEATMAP: 'false' } });
    try {
      const unknown = await answer(await gw.fetch('/api/v1/users/alice/no-such-route'));
      expect(unknown.status).toBe(404);
      expect(await answer(await gw.fetch('/api/v1/users/alice/heatmap'))).toEqual(unknown);
      expect(s.accounts.activity.requests).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});
