/**
 * GET /user and GET /users/{username}: the JSON a caller gets. What a viewer may see is decided by accounts
 * (services/accounts tests); the fake applies the same rules, so these check the gateway's part end to end.
 */
import type { ApiUser } from '@cairn/gitea-json';
import { expectExactGiteaShape } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { type TestGateway, basic, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

function seed() {
  const accounts = new FakeAccounts();
  const alice = accounts.addUser('alice', {
    fullName: 'Alice A.',
    location: 'Lyon',
    website: 'https://alice.example',
    description: 'hi',
    language: 'fr-FR',
    lastLogin: new Date('2024-03-04T05:06:07.890Z'),
  });
  const bob = accounts.addUser('bob');
  const limited = accounts.addUser('lim', { visibility: 'limited' });
  const hidden = accounts.addUser('hid', { visibility: 'private' });
  const restricted = accounts.addUser('res', { restricted: true });
  const root = accounts.addUser('root', { isAdmin: true });
  const token = (id: number) => tokenAuth(accounts.addToken(id, 't', ['all']).secret);
  return { accounts, alice, bob, limited, hidden, restricted, root, token };
}

describe('GET /user', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it('answers the signed-in user in full, as a Gitea User', async () => {
    const res = await gw.fetch('/api/v1/user', { headers: { Authorization: s.token(s.alice.id) } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expectExactGiteaShape('User', body);
    expect(body).toEqual({
      id: s.alice.id,
      login: 'alice',
      login_name: '',
      source_id: 0,
      full_name: 'Alice A.',
      email: 'alice@example.com',
      avatar_url: expect.stringMatching(/^http:\/\/localhost:3000\/avatars\/[0-9a-f]{32}$/),
      html_url: 'http://localhost:3000/alice',
      language: 'fr-FR',
      is_admin: false,
      last_login: '2024-03-04T05:06:07Z',
      created: '2024-01-02T03:04:05Z',
      restricted: false,
      active: true,
      prohibit_login: false,
      location: 'Lyon',
      website: 'https://alice.example',
      description: 'hi',
      visibility: 'public',
      followers_count: 0,
      following_count: 0,
      starred_repos_count: 0,
      username: 'alice',
    });
  });

  it("shows Go's zero time for a user who never signed in", async () => {
    const body = (await (await gw.fetch('/api/v1/user', { headers: { Authorization: s.token(s.bob.id) } })).json()) as ApiUser;
    expect(body.last_login).toBe('0001-01-01T00:00:00Z');
  });

  it('needs a signed-in user', async () => {
    const res = await gw.fetch('/api/v1/user');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'token is required', url: URL_KEY });
  });
});

describe('GET /users/{username}', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  const get = (name: string, auth?: string) => gw.fetch(`/api/v1/users/${name}`, auth === undefined ? {} : { headers: { Authorization: auth } });

  it('shows a public user to anonymous callers without private details and with a placeholder e-mail', async () => {
    const res = await get('alice');
    expect(res.status).toBe(200);
    const body = await res.json();
    expectExactGiteaShape('User', body);
    expect(body).toMatchObject({
      login: 'alice',
      username: 'alice',
      email: `${s.alice.id}+alice@noreply.localhost`,
      is_admin: false,
      language: '',
      last_login: '0001-01-01T00:00:00Z',
      active: false,
      login_name: '',
    });
  });

  it('shows the real e-mail to signed-in users, the details only to self and admins', async () => {
    const byBob = await (await get('alice', s.token(s.bob.id))).json();
    expect(byBob).toMatchObject({ email: 'alice@example.com', language: '', active: false });
    const byRoot = await (await get('alice', s.token(s.root.id))).json();
    expect(byRoot).toMatchObject({ email: 'alice@example.com', language: 'fr-FR', active: true, last_login: '2024-03-04T05:06:07Z' });
  });

  it('finds users case-insensitively', async () => {
    expect(((await (await get('ALICE')).json()) as ApiUser).login).toBe('alice');
  });

  it('answers 404 for unknown users', async () => {
    const res = await get('ghost');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'user redirect does not exist [name: ghost]', url: URL_KEY });
  });

  it('hides limited users from anonymous and restricted callers, exactly as unknown users', async () => {
    for (const auth of [undefined, s.token(s.restricted.id)]) {
      const res = await get('lim', auth);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'user redirect does not exist [name: lim]', url: URL_KEY });
    }
    expect((await get('lim', s.token(s.bob.id))).status).toBe(200);
  });

  it('shows private users only to themselves and site admins', async () => {
    expect((await get('hid')).status).toBe(404);
    expect((await get('hid', s.token(s.bob.id))).status).toBe(404);
    expect((await get('hid', s.token(s.hidden.id))).status).toBe(200);
    expect((await get('hid', basic('root', 'password123'))).status).toBe(200);
  });
});

describe('GET /users/{username} with [service.explore] REQUIRE_SIGNIN_VIEW', () => {
  it('asks anonymous callers to sign in', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__ui_0X2E_explore__REQUIRE_SIGNIN_VIEW: 'true' } });
    try {
      const res = await gw.fetch('/api/v1/users/alice');
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'you must be signed in to search for users', url: URL_KEY });
      expect((await gw.fetch('/api/v1/users/alice', { headers: { Authorization: s.token(s.bob.id) } })).status).toBe(200);
      expect((await gw.fetch('/api/v1/version')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
