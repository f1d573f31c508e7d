import { encodeEvent } from '@cairn/bus';
import { AccessTokenDeleted, UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import { FakeAccounts } from './support/fake-accounts';
import { FakeBroadcastBus } from './support/fake-bus';
import { GIT_REPO_CACHE_SUBJECTS } from '../src/git/repo-cache-invalidation';
import { type TestGateway, basic, eventually, startTestGateway, tokenAuth } from './support/harness';

const INVALID = { message: 'invalid username, password or token', url: 'http://localhost:3000/api/swagger' };

function seed(accounts = new FakeAccounts()) {
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const root = accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const aliceAll = accounts.addToken(alice.id, 'all', ['all']).secret;
  const aliceReadUser = accounts.addToken(alice.id, 'read-user', ['read:user']).secret;
  const aliceRepo = accounts.addToken(alice.id, 'repo', ['read:repository']).secret;
  const rootAll = accounts.addToken(root.id, 'root-all', ['all']).secret;
  return { accounts, alice, root, aliceAll, aliceReadUser, aliceRepo, rootAll };
}

async function login(gw: TestGateway, init: RequestInit, path = '/api/v1/user'): Promise<{ status: number; body: unknown; res: Response }> {
  const res = await gw.fetch(path, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), res };
}

describe('authentication forms', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  const loginOf = (r: { body: unknown }) => (r.body as { login?: string }).login;

  it('is anonymous without credentials: public routes answer, token routes say a token is required', async () => {
    expect((await login(gw, {}, '/api/v1/version')).status).toBe(200);
    const r = await login(gw, {});
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: 'token is required', url: 'http://localhost:3000/api/swagger' });
  });

  it('accepts Authorization: token and Bearer, the scheme in any case', async () => {
    for (const header of [`token ${s.aliceAll}`, `Bearer ${s.aliceAll}`, `TOKEN ${s.aliceAll}`, `bEaReR ${s.aliceAll}`, `  token   ${s.aliceAll} `]) {
      const r = await login(gw, { headers: { Authorization: header } });
      expect(r.status).toBe(200);
      expect(loginOf(r)).toBe('alice');
    }
  });

  it('ignores an Authorization header that is not exactly two fields or has another scheme', async () => {
    for (const header of [`token ${s.aliceAll} extra`, 'token', `Digest ${s.aliceAll}`]) {
      const r = await login(gw, { headers: { Authorization: header } });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'token is required', url: 'http://localhost:3000/api/swagger' });
    }
  });

  it('accepts Basic with user and password', async () => {
    const r = await login(gw, { headers: { Authorization: basic('alice', 'alice-password') } });
    expect(r.status).toBe(200);
    expect(loginOf(r)).toBe('alice');
    expect(s.accounts.calls.authenticatePassword).toBeGreaterThan(0);
  });

  it('accepts Basic with the token as password, or as user name with an empty or x-oauth-basic password', async () => {
    for (const header of [basic('whoever', s.aliceAll), basic(s.aliceAll, ''), basic(s.aliceAll, 'x-oauth-basic')]) {
      const r = await login(gw, { headers: { Authorization: header } });
      expect(r.status).toBe(200);
      expect(loginOf(r)).toBe('alice');
    }
  });

  it('accepts ?token= and ?access_token=, warning that they are deprecated', async () => {
    for (const query of [`token=${s.aliceAll}`, `access_token=${s.aliceAll}`]) {
      const r = await login(gw, {}, `/api/v1/user?${query}`);
      expect(r.status).toBe(200);
      expect(loginOf(r)).toBe('alice');
      expect(r.res.headers.get('x-gitea-warning')).toMatch(/^token and access_token API authentication is deprecated/);
    }
    const plain = await login(gw, { headers: { Authorization: tokenAuth(s.aliceAll) } });
    expect(plain.res.headers.get('x-gitea-warning')).toBeNull();
  });

  it('lets the query token win over the header, as Gitea does', async () => {
    const r = await login(gw, { headers: { Authorization: tokenAuth(s.rootAll) } }, `/api/v1/user?token=${s.aliceAll}`);
    expect(loginOf(r)).toBe('alice');
  });

  it('answers 401 for bad credentials of every form, even on a public route', async () => {
    const bad = 'f'.repeat(40);
    const attempts: Array<[RequestInit, string]> = [
      [{ headers: { Authorization: `token ${bad}` } }, '/api/v1/version'],
      [{ headers: { Authorization: 'Bearer not-a-token' } }, '/api/v1/version'],
      [{ headers: { Authorization: basic('alice', 'wrong-password') } }, '/api/v1/version'],
      [{ headers: { Authorization: basic('nobody', 'whatever') } }, '/api/v1/settings/api'],
      [{ headers: { Authorization: basic(bad, '') } }, '/api/v1/version'],
      [{}, `/api/v1/version?token=${bad}`],
      [{}, `/api/v1/settings/ui?access_token=${bad}`],
      [{ headers: { Authorization: `token ${bad}` } }, '/api/v1/no/such/route'],
    ];
    for (const [init, path] of attempts) {
      const r = await login(gw, init, path);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 401, body: INVALID });
    }
  });

  it('echoes a plain X-Request-Id, replaces a suspicious one, and logs one line per request', async () => {
    const res = await gw.fetch(`/api/v1/version?token=${s.aliceAll}`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const forged = await gw.fetch('/api/v1/version', { headers: { 'X-Request-Id': 'bad id <script>' } });
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const line = await eventually(() => gw.logs.find((l) => l.request_id === 'abc-123' && l.msg === 'request'));
    expect(line).toMatchObject({ method: 'GET', path: '/api/v1/version', status: 200, request_id: 'abc-123' });
    expect(typeof line?.duration_ms).toBe('number');
    expect(JSON.stringify(gw.logs)).not.toContain(s.aliceAll);
  });
});

describe('authentication settings', () => {
  it('[security] DISABLE_QUERY_AUTH_TOKEN ignores query tokens (still warning about them)', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__security__DISABLE_QUERY_AUTH_TOKEN: 'true' } });
    try {
      const r = await login(gw, {}, `/api/v1/user?token=${s.aliceAll}`);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'token is required', url: 'http://localhost:3000/api/swagger' });
      expect(r.res.headers.get('x-gitea-warning')).not.toBeNull();
      expect((await login(gw, {}, `/api/v1/version?token=${'f'.repeat(40)}`)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('[service] ENABLE_BASIC_AUTHENTICATION=false leaves password Basic auth anonymous, token Basic auth working', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__service__ENABLE_BASIC_AUTHENTICATION: 'false' } });
    try {
      const r = await login(gw, { headers: { Authorization: basic('alice', 'alice-password') } });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'token is required', url: 'http://localhost:3000/api/swagger' });
      expect(s.accounts.calls.authenticatePassword).toBeUndefined();
      expect((await login(gw, { headers: { Authorization: basic('alice', s.aliceAll) } })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('[service] REQUIRE_SIGNIN_VIEW refuses every anonymous API call, /version and unknown routes included', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts, env: { CAIRN__service__REQUIRE_SIGNIN_VIEW: 'true' } });
    try {
      for (const path of ['/api/v1/version', '/api/v1/settings/api', '/api/v1/users/alice', '/api/v1/nothing/here']) {
        const res = await gw.fetch(path);
        expect(res.status).toBe(403);
        expect(await res.text()).toBe('{"message":"Only signed in user is allowed to call APIs."}\n');
      }
      expect((await login(gw, { headers: { Authorization: tokenAuth(s.aliceAll) } }, '/api/v1/version')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('account state', () => {
  const s = seed();
  const inactive = s.accounts.addUser('sleepy', { active: false });
  const prohibited = s.accounts.addUser('banned', { prohibitLogin: true });
  const mustChange = s.accounts.addUser('fresh', { mustChangePassword: true });
  const tokens = {
    inactive: s.accounts.addToken(inactive.id, 't', ['all']).secret,
    prohibited: s.accounts.addToken(prohibited.id, 't', ['all']).secret,
    mustChange: s.accounts.addToken(mustChange.id, 't', ['all']).secret,
  };
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it('refuses inactive and prohibited users on every route', async () => {
    for (const token of [tokens.inactive, tokens.prohibited]) {
      const res = await gw.fetch('/api/v1/version', { headers: { Authorization: tokenAuth(token) } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        message: 'This account is prohibited from signing in, please contact your site administrator.',
      });
    }
    const password = await gw.fetch('/api/v1/user', { headers: { Authorization: basic('banned', 'password123') } });
    expect(password.status).toBe(403);
  });

  it('refuses a user who must change their password, pointing at the page to do it', async () => {
    const res = await gw.fetch('/api/v1/user', { headers: { Authorization: tokenAuth(tokens.mustChange) } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      message: 'You must change your password. Change it at: http://localhost:3000/user/change_password',
    });
  });
});

describe('sudo', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it('lets a site admin act as another user through ?sudo= or the Sudo header', async () => {
    const byQuery = await login(gw, { headers: { Authorization: tokenAuth(s.rootAll) } }, '/api/v1/user?sudo=alice');
    expect((byQuery.body as { login: string }).login).toBe('alice');
    const byHeader = await login(gw, { headers: { Authorization: basic('root', 'root-password'), Sudo: 'ALICE' } });
    expect((byHeader.body as { login: string }).login).toBe('alice');
  });

  it('refuses sudo to anyone else, anonymous included', async () => {
    for (const init of [{ headers: { Authorization: tokenAuth(s.aliceAll) } }, {}]) {
      const res = await gw.fetch('/api/v1/version?sudo=root', init);
      expect(res.status).toBe(403);
      expect(await res.text()).toBe('{"message":"Only administrators allowed to sudo."}\n');
    }
  });

  it('answers 404 for an unknown sudo user', async () => {
    const r = await login(gw, { headers: { Authorization: tokenAuth(s.rootAll), Sudo: 'ghost' } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: null, message: 'not found', url: 'http://localhost:3000/api/swagger' });
  });
});

describe('token scopes', () => {
  const s = seed();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts: s.accounts });
  });
  afterAll(() => gw.close());

  it('lets a read token read', async () => {
    expect((await login(gw, { headers: { Authorization: tokenAuth(s.aliceReadUser) } })).status).toBe(200);
  });

  it("refuses a token without the route's category, with Gitea's message", async () => {
    const r = await login(gw, { headers: { Authorization: tokenAuth(s.aliceRepo) } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      message: 'token does not have at least one of required scope(s), required=[read:user], token scope=read:repository',
      url: 'http://localhost:3000/api/swagger',
    });
  });

  it('refuses a read token on a write route', async () => {
    const res = await gw.fetch('/api/v1/users/alice/tokens', {
      method: 'POST',
      headers: { Authorization: basic('alice', s.aliceReadUser), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'new', scopes: ['all'] }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      message: 'token does not have at least one of required scope(s), required=[write:user], token scope=read:user',
      url: 'http://localhost:3000/api/swagger',
    });
  });

  it('does not apply scopes to password sign-ins or to routes without a category', async () => {
    expect((await login(gw, { headers: { Authorization: basic('alice', 'alice-password') } })).status).toBe(200);
    expect((await login(gw, { headers: { Authorization: tokenAuth(s.aliceRepo) } }, '/api/v1/version')).status).toBe(200);
  });
});

describe('token cache', () => {
  it('asks accounts once per token while the entry lives', async () => {
    const s = seed();
    const gw = await startTestGateway({ accounts: s.accounts });
    try {
      for (let i = 0; i < 3; i += 1) expect((await login(gw, { headers: { Authorization: tokenAuth(s.aliceAll) } })).status).toBe(200);
      expect(s.accounts.calls.authenticateToken).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('forgets a token when accounts publishes its deletion, and a user when it changes, is renamed or goes', async () => {
    const s = seed();
    const bus = new FakeBroadcastBus();
    const gw = await startTestGateway({ accounts: s.accounts, bus });
    const auth = (secret: string) => ({ headers: { Authorization: tokenAuth(secret) } });
    try {
      // The token cache's four subjects, and the smart HTTP repository cache's (git/repo-cache-invalidation.ts).
      expect(bus.subscriptionCount).toBe(4 + GIT_REPO_CACHE_SUBJECTS.length);
      expect((await login(gw, auth(s.aliceAll))).status).toBe(200);

      // Deleted behind the gateway's back: the cached entry still answers until the event arrives.
      const deleted = s.accounts.tokens.get(s.aliceAll);
      s.accounts.tokens.delete(s.aliceAll);
      expect((await login(gw, auth(s.aliceAll))).status).toBe(200);
      await bus.publishEvent(
        'cairn.access_token.deleted',
        encodeEvent(AccessTokenDeleted, { meta: undefined, tokenId: deleted?.id ?? 0, userId: s.alice.id }),
      );
      expect((await login(gw, auth(s.aliceAll))).status).toBe(401);

      // A user change (here: prohibited from signing in) evicts the user's tokens.
      expect((await login(gw, auth(s.aliceReadUser))).status).toBe(200);
      s.accounts.setUser(s.alice.id, { prohibitLogin: true });
      expect((await login(gw, auth(s.aliceReadUser))).status).toBe(200);
      const changed = s.accounts.users.get(s.alice.id);
      await bus.publishEvent('cairn.user.updated', encodeEvent(UserUpdated, { meta: undefined, user: changed, changed: ['prohibit_login'], version: 0 }));
      expect((await login(gw, auth(s.aliceReadUser))).status).toBe(403);

      // A renamed user's cached sign-ins carry the old name: they go too.
      s.accounts.setUser(s.alice.id, { prohibitLogin: false });
      await bus.publishEvent('cairn.user.updated', encodeEvent(UserUpdated, { meta: undefined, user: s.accounts.users.get(s.alice.id), changed: [], version: 0 }));
      expect(((await login(gw, auth(s.aliceReadUser))).body as { login: string }).login).toBe('alice');
      s.accounts.setUser(s.alice.id, { login: 'alicia' });
      await bus.publishEvent(
        'cairn.user.renamed',
        encodeEvent(UserRenamed, { meta: undefined, user: s.accounts.users.get(s.alice.id), oldLogin: 'alice', version: 0 }),
      );
      expect(((await login(gw, auth(s.aliceReadUser))).body as { login: string }).login).toBe('alicia');

      // A deleted user's tokens go with it.
      expect((await login(gw, auth(s.rootAll))).status).toBe(200);
      s.accounts.users.delete(s.root.id);
      await bus.publishEvent('cairn.user.deleted', encodeEvent(UserDeleted, { meta: undefined, userId: s.root.id, login: 'root', purge: false }));
      expect((await login(gw, auth(s.rootAll))).status).toBe(401);

      // An unreadable event forgets everything.
      expect(gw.gateway.tokenCache.size).toBeGreaterThan(0);
      await bus.publishEvent('cairn.user.updated', new TextEncoder().encode('not json'));
      expect(gw.gateway.tokenCache.size).toBe(0);
    } finally {
      await gw.close();
    }
    expect(bus.subscriptionCount).toBe(0);
  });
});
