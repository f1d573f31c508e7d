import type { ApiAccessToken } from '@cairn/gitea-json';
import { expectExactGiteaShape } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { type TestGateway, basic, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

describe('access token routes', () => {
  const accounts = new FakeAccounts();
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  accounts.addUser('bob', { password: 'bob-password' });
  accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const aliceToken = accounts.addToken(alice.id, 'existing', ['all']).secret;
  const ALICE = basic('alice', 'alice-password');
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());

  const create = (name: unknown, scopes: unknown, auth = ALICE, user = 'alice') =>
    gw.fetch(`/api/v1/users/${user}/tokens`, jsonBody('POST', { name, scopes }, { Authorization: auth }));

  it('creates a token (201) and shows its secret once', async () => {
    const res = await create('ci', ['write:repository', 'read:user']);
    expect(res.status).toBe(201);
    const body = (await res.json()) as ApiAccessToken;
    expectExactGiteaShape('AccessToken', body);
    expect(body).toMatchObject({ name: 'ci', scopes: ['write:repository', 'read:user'] });
    expect(body.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(body.token_last_eight).toBe(body.sha1.slice(-8));
    // The new token works.
    const me = await gw.fetch('/api/v1/user', { headers: { Authorization: tokenAuth(body.sha1) } });
    expect(me.status).toBe(200);
  });

  it('refuses a used name, no scope and an unknown scope with 400', async () => {
    const used = await create('existing', ['all']);
    expect(used.status).toBe(400);
    expect(await used.json()).toEqual({ message: 'access token name has been used already', url: URL_KEY });
    const none = await create('noscope', []);
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ message: 'access token must have a scope', url: URL_KEY });
    const bad = await create('bad', ['read:everything']);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      message: 'invalid access token scope provided: invalid access token scope: read:everything',
      url: URL_KEY,
    });
  });

  it('requires a name (422) and checks JSON types (422)', async () => {
    const missing = await create(undefined, ['all']);
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({ message: '[Name]: Required', url: URL_KEY });
    const wrongType = await create('x', 'all');
    expect(wrongType.status).toBe(422);
    expect(await wrongType.json()).toEqual({
      message: '[]: json: cannot unmarshal string into Go struct field CreateAccessTokenOption.scopes of type []string',
      url: URL_KEY,
    });
  });

  it('refuses token authentication: these routes need Basic auth', async () => {
    for (const init of [{ headers: { Authorization: tokenAuth(aliceToken) } }, {}]) {
      const res = await gw.fetch(`/api/v1/users/alice/tokens?token=${aliceToken}`, init);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'auth required', url: URL_KEY });
    }
    // Basic auth carrying a token is Basic auth.
    expect((await gw.fetch('/api/v1/users/alice/tokens', { headers: { Authorization: basic('alice', aliceToken) } })).status).toBe(200);
  });

  it('lets only the user or a site admin in', async () => {
    const bob = await gw.fetch('/api/v1/users/alice/tokens', { headers: { Authorization: basic('bob', 'bob-password') } });
    expect(bob.status).toBe(403);
    expect(await bob.json()).toEqual({ message: 'doer should be the site admin or be same as the contextUser', url: URL_KEY });
    const anonymous = await gw.fetch('/api/v1/users/alice/tokens');
    expect(anonymous.status).toBe(403);
    const root = await gw.fetch('/api/v1/users/alice/tokens', { headers: { Authorization: basic('root', 'root-password') } });
    expect(root.status).toBe(200);
    const ghost = await gw.fetch('/api/v1/users/ghost/tokens', { headers: { Authorization: basic('root', 'root-password') } });
    expect(ghost.status).toBe(404);
  });

  it('lists tokens with X-Total-Count and Link, without secrets', async () => {
    for (const name of ['p1', 'p2', 'p3']) expect((await create(name, ['read:user'])).status).toBe(201);
    const total = [...accounts.tokens.values()].filter((t) => t.userId === alice.id).length;
    const res = await gw.fetch('/api/v1/users/alice/tokens?limit=2&page=1', { headers: { Authorization: ALICE } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe(String(total));
    expect(res.headers.get('access-control-expose-headers')).toBe('Link, X-Total-Count');
    const last = Math.ceil(total / 2);
    expect(res.headers.get('link')).toBe(
      `<http://localhost:3000/api/v1/users/alice/tokens?limit=2&page=2>; rel="next",` +
        `<http://localhost:3000/api/v1/users/alice/tokens?limit=2&page=${last}>; rel="last"`,
    );
    const body = (await res.json()) as ApiAccessToken[];
    expect(body).toHaveLength(2);
    for (const token of body) {
      expectExactGiteaShape('AccessToken', token);
      expect(token.sha1).toBe('');
    }
    const all = await gw.fetch('/api/v1/users/alice/tokens', { headers: { Authorization: ALICE } });
    expect(await all.json()).toHaveLength(total);
    expect(all.headers.get('link')).toBeNull();
    expect(all.headers.get('access-control-expose-headers')).toBe('X-Total-Count');
  });

  it('deletes a token by id or by name (204); unknown 404; an ambiguous name 422', async () => {
    const byName = await create('delete-me', ['read:user']);
    const created = (await byName.json()) as ApiAccessToken;
    expect((await gw.fetch('/api/v1/users/alice/tokens/delete-me', { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);
    expect((await gw.fetch('/api/v1/user', { headers: { Authorization: tokenAuth(created.sha1) } })).status).toBe(401);

    const byId = (await (await create('delete-by-id', ['read:user'])).json()) as ApiAccessToken;
    expect((await gw.fetch(`/api/v1/users/alice/tokens/${byId.id}`, { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);

    const unknown = await gw.fetch('/api/v1/users/alice/tokens/nothing', { method: 'DELETE', headers: { Authorization: ALICE } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ errors: null, message: 'not found', url: URL_KEY });

    accounts.addToken(alice.id, 'twin', ['all']);
    accounts.addToken(alice.id, 'twin', ['all']);
    const ambiguous = await gw.fetch('/api/v1/users/alice/tokens/twin', { method: 'DELETE', headers: { Authorization: ALICE } });
    expect(ambiguous.status).toBe(422);
    expect(await ambiguous.json()).toEqual({ message: "multiple matches for token name 'twin'", url: URL_KEY });
  });

  it('forgets a deleted token on this instance at once', async () => {
    const { sha1 } = (await (await create('cached', ['read:user'])).json()) as ApiAccessToken;
    expect((await gw.fetch('/api/v1/user', { headers: { Authorization: tokenAuth(sha1) } })).status).toBe(200);
    expect((await gw.fetch('/api/v1/users/alice/tokens/cached', { method: 'DELETE', headers: { Authorization: ALICE } })).status).toBe(204);
    expect((await gw.fetch('/api/v1/user', { headers: { Authorization: tokenAuth(sha1) } })).status).toBe(401);
  });
});
