import { CairnError } from '@cairn/rpc';
import { expectExactGiteaShape } from './support/gitea-schema';
import { FakeAccounts } from './support/fake-accounts';
import { type TestGateway, basic, jsonBody, startTestGateway, tokenAuth } from './support/harness';

const URL_KEY = 'http://localhost:3000/api/swagger';

describe('admin user routes', () => {
  const accounts = new FakeAccounts();
  const root = accounts.addUser('root', { isAdmin: true, password: 'root-password' });
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  const ROOT = basic('root', 'root-password');
  const rootAdminToken = tokenAuth(accounts.addToken(root.id, 'admin', ['write:admin']).secret);
  const rootUserToken = tokenAuth(accounts.addToken(root.id, 'user', ['write:user']).secret);
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ accounts });
  });
  afterAll(() => gw.close());

  const createUser = (body: unknown, auth = ROOT) => gw.fetch('/api/v1/admin/users', jsonBody('POST', body, { Authorization: auth }));
  const editUser = (name: string, body: unknown, auth = ROOT) =>
    gw.fetch(`/api/v1/admin/users/${name}`, jsonBody('PATCH', body, { Authorization: auth }));

  describe('POST /admin/users', () => {
    it('creates a user (201) who must change the password unless told otherwise', async () => {
      const res = await createUser({ username: 'carol', email: 'carol@example.com', password: 'carol-password', full_name: 'Carol' });
      expect(res.status).toBe(201);
      const body = await res.json();
      expectExactGiteaShape('User', body);
      expect(body).toMatchObject({ login: 'carol', email: 'carol@example.com', full_name: 'Carol', active: true, visibility: 'public' });
      const stored = [...accounts.users.values()].find((u) => u.login === 'carol');
      expect(stored?.mustChangePassword).toBe(true);

      await createUser({ username: 'dave', email: 'dave@example.com', password: 'dave-password', must_change_password: false, restricted: true, visibility: 'limited' });
      const dave = [...accounts.users.values()].find((u) => u.login === 'dave');
      expect(dave).toMatchObject({ mustChangePassword: false, restricted: true, visibility: 'limited' });
    });

    it('accepts a token with the admin scope only', async () => {
      expect((await createUser({ username: 'erin', email: 'erin@example.com', password: 'erin-password' }, rootAdminToken)).status).toBe(201);
      const res = await createUser({ username: 'frank', email: 'frank@example.com', password: 'frank-password' }, rootUserToken);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        message: 'token does not have at least one of required scope(s), required=[write:admin], token scope=write:user',
        url: URL_KEY,
      });
    });

    it('is for site admins only', async () => {
      const res = await createUser({ username: 'x1', email: 'x1@example.com', password: 'x1-password' }, basic('alice', 'alice-password'));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ message: 'user should be the site admin', url: URL_KEY });
      const anonymous = await gw.fetch('/api/v1/admin/users', jsonBody('POST', {}));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ message: 'token is required', url: URL_KEY });
    });

    it('answers 422 for a taken name or e-mail and a reserved or invalid name, 400 for a short password', async () => {
      const cases: Array<[unknown, number, string]> = [
        [{ username: 'alice', email: 'new@example.com', password: 'long-enough' }, 422, 'user already exists [name: alice]'],
        [{ username: 'newbie', email: 'alice@example.com', password: 'long-enough' }, 422, 'e-mail already in use [email: alice@example.com]'],
        [{ username: 'api', email: 'api@example.com', password: 'long-enough' }, 422, 'name is reserved [name: api]'],
        [
          { username: 'bad name', email: 'bad@example.com', password: 'long-enough' },
          422,
          'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters',
        ],
        [{ username: 'shorty', email: 'shorty@example.com', password: 'short' }, 400, 'password must be at least 8 characters'],
      ];
      for (const [body, status, message] of cases) {
        const res = await createUser(body);
        expect({ status: res.status, body: await res.json() }).toEqual({ status, body: { message, url: URL_KEY } });
      }
    });

    it("checks the body as Gitea's binding does (422)", async () => {
      const cases: Array<[unknown, string]> = [
        [{}, '[Username]: Required'],
        [{ username: 'x' }, '[Email]: Required'],
        [{ username: 'x', email: 'nope' }, '[Email]: Email'],
        [{ username: 'x'.repeat(41), email: 'x@example.com' }, '[Username]: MaxSize'],
        [{ username: 'x', email: 'x@example.com', visibility: 'secret' }, '[Visibility]: In'],
        [{ username: 7, email: 'x@example.com' }, '[]: json: cannot unmarshal number into Go struct field CreateUserOption.username of type string'],
        [{ username: 'x', email: 'x@example.com', source_id: 3 }, 'login source does not exist [id: 3]'],
      ];
      for (const [body, message] of cases) {
        const res = await createUser(body);
        expect({ status: res.status, body: await res.json() }).toEqual({ status: 422, body: { message, url: URL_KEY } });
      }
    });
  });

  describe('PATCH /admin/users/{username}', () => {
    it('changes the given fields only and answers the user (200)', async () => {
      const res = await editUser('alice', { full_name: 'Alice Liddell', location: 'Oxford', admin: true, max_repo_creation: 5, restricted: true, visibility: 'limited' });
      expect(res.status).toBe(200);
      const body = await res.json();
      expectExactGiteaShape('User', body);
      expect(body).toMatchObject({ login: 'alice', full_name: 'Alice Liddell', location: 'Oxford', is_admin: true, restricted: true, visibility: 'limited' });
      const stored = accounts.users.get(alice.id);
      expect(stored).toMatchObject({ maxRepoCreation: 5, email: 'alice@example.com', website: '' });
      await editUser('alice', { admin: false, restricted: false, visibility: 'public' });
    });

    it('takes a body without source_id and login_name, as Gitea does', async () => {
      expect((await editUser('alice', { description: 'reads' })).status).toBe(200);
      expect(accounts.users.get(alice.id)?.description).toBe('reads');
    });

    it('answers 400 for an empty or taken e-mail and a short password', async () => {
      const empty = await editUser('alice', { email: '' });
      expect(empty.status).toBe(400);
      expect(await empty.json()).toEqual({ message: 'e-mail invalid [email: ]', url: URL_KEY });
      const taken = await editUser('alice', { email: 'root@example.com' });
      expect(taken.status).toBe(400);
      const short = await editUser('alice', { password: 'short' });
      expect(short.status).toBe(400);
      expect(await short.json()).toEqual({ message: 'password must be at least 8 characters', url: URL_KEY });
    });

    it('sets a new password and the must-change flag', async () => {
      expect((await editUser('alice', { password: 'alice-new-password', must_change_password: false })).status).toBe(200);
      expect((await gw.fetch('/api/v1/user', { headers: { Authorization: basic('alice', 'alice-new-password') } })).status).toBe(200);
      await editUser('alice', { password: 'alice-password' });
    });

    it('answers 404 for an unknown user and 422 for a bad body', async () => {
      const unknown = await editUser('ghost', { full_name: 'x' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ message: 'user redirect does not exist [name: ghost]', url: URL_KEY });
      const bad = await editUser('alice', { active: 'yes' });
      expect(bad.status).toBe(422);
      expect(await bad.json()).toEqual({
        message: '[]: json: cannot unmarshal string into Go struct field EditUserOption.active of type bool',
        url: URL_KEY,
      });
    });

    it('evicts the edited user from the token cache at once', async () => {
      const token = tokenAuth(accounts.addToken(alice.id, 'cache', ['all']).secret);
      expect((await gw.fetch('/api/v1/user', { headers: { Authorization: token } })).status).toBe(200);
      expect((await editUser('alice', { prohibit_login: true })).status).toBe(200);
      expect((await gw.fetch('/api/v1/user', { headers: { Authorization: token } })).status).toBe(403);
      expect((await editUser('alice', { prohibit_login: false })).status).toBe(200);
    });
  });

  describe('DELETE /admin/users/{username}', () => {
    it('deletes a user (204); unknown 404; yourself 422', async () => {
      accounts.addUser('gone');
      expect((await gw.fetch('/api/v1/admin/users/gone?purge=true', { method: 'DELETE', headers: { Authorization: ROOT } })).status).toBe(204);
      expect([...accounts.users.values()].some((u) => u.login === 'gone')).toBe(false);
      expect((await gw.fetch('/api/v1/admin/users/gone', { method: 'DELETE', headers: { Authorization: ROOT } })).status).toBe(404);
      const self = await gw.fetch('/api/v1/admin/users/root', { method: 'DELETE', headers: { Authorization: ROOT } });
      expect(self.status).toBe(422);
      expect(await self.json()).toEqual({ message: 'you cannot delete yourself', url: URL_KEY });
    });

    it('passes purge on', async () => {
      const target = accounts.addUser('purged');
      const seen: boolean[] = [];
      const original = accounts.clients.users.deleteUser;
      accounts.clients.users.deleteUser = async (request, options) => {
        seen.push(request.purge);
        return original(request, options);
      };
      try {
        await gw.fetch('/api/v1/admin/users/purged?purge=1', { method: 'DELETE', headers: { Authorization: ROOT } });
      } finally {
        accounts.clients.users.deleteUser = original;
      }
      expect(seen).toEqual([true]);
      expect(accounts.users.has(target.id)).toBe(false);
    });

    it("answers 422 with Gitea's message while the user owns repositories, and deletes them with purge", async () => {
      const owner = accounts.addUser('owner');
      const original = accounts.clients.users.deleteUser;
      accounts.clients.users.deleteUser = async (request, options) => {
        if (!request.purge) {
          throw CairnError.precondition(`user still has ownership of repositories [uid: ${request.id}]`, { reason: 'owner_has_repositories' });
        }
        return original(request, options);
      };
      try {
        const refused = await gw.fetch('/api/v1/admin/users/owner', { method: 'DELETE', headers: { Authorization: ROOT } });
        expect({ status: refused.status, body: await refused.json() }).toEqual({
          status: 422,
          body: { message: `user still has ownership of repositories [uid: ${owner.id}]`, url: URL_KEY },
        });
        expect(accounts.users.has(owner.id)).toBe(true);
        expect((await gw.fetch('/api/v1/admin/users/owner?purge=true', { method: 'DELETE', headers: { Authorization: ROOT } })).status).toBe(204);
        expect(accounts.users.has(owner.id)).toBe(false);
      } finally {
        accounts.clients.users.deleteUser = original;
      }
    });

    it('answers 503 when accounts is down, never a hang or a 500', async () => {
      accounts.addUser('survivor');
      accounts.failure = CairnError.unavailable('accounts is unavailable');
      try {
        const res = await gw.fetch('/api/v1/admin/users/survivor', { method: 'DELETE', headers: { Authorization: rootAdminToken } });
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({ message: 'accounts is unavailable', url: URL_KEY });
      } finally {
        accounts.failure = undefined;
      }
    });
  });
});
