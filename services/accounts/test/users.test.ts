import { decodeEvent } from '@cairn/bus';
import { UserCreated, UserDeleted, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import { silentLogger } from '@cairn/log';
import { CreateOrgRequest, OrgServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { Code, createRpcClient } from '@cairn/rpc';
import { startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ CAIRN__SECURITY__MIN_PASSWORD_LENGTH: '10' });
});

afterAll(async () => {
  await h?.stop();
});

const PASSWORD = 'correct-horse-battery';

function createUser(username: string, overrides: Partial<Parameters<Harness['users']['createUser']>[0]> = {}) {
  return h.users.createUser({
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    fullName: '',
    loginName: '',
    sourceId: 0,
    mustChangePassword: false,
    restricted: false,
    visibility: '',
    isAdmin: false,
    actorId: 0,
    ...overrides,
  });
}

/** Runs `change` and returns the outbox rows it added. */
async function newOutboxRows(change: () => Promise<unknown>) {
  const before = (await h.outbox()).length;
  await change();
  return (await h.outbox()).slice(before);
}

describe('CreateUser', () => {
  it('creates a user with defaults and records one cairn.user.created event', async () => {
    let user;
    const rows = await newOutboxRows(async () => {
      ({ user } = await createUser('Alice', { fullName: 'Alice A.', actorId: 7 }));
    });
    expect(user).toMatchObject({
      login: 'Alice',
      email: 'Alice@example.com',
      fullName: 'Alice A.',
      active: true,
      isAdmin: false,
      visibility: 'public',
      maxRepoCreation: -1,
      allowCreateOrganization: true,
      prohibitLogin: false,
      mustChangePassword: false,
    });
    expect(user!.id).toBeGreaterThan(0);
    expect(user!.created).toBeInstanceOf(Date);
    expect(user!.lastLogin).toEqual(new Date(0));

    expect(rows).toHaveLength(1);
    expect(rows[0].subject).toBe('cairn.user.created');
    const event = decodeEvent(UserCreated, rows[0].data);
    expect(event.user).toEqual(user);
    expect(event.meta).toMatchObject({ eventId: rows[0].id, actorId: 7 });
    expect(event.meta!.occurredAt).toBeInstanceOf(Date);
    expect(rows[0].data.toString()).not.toContain(PASSWORD);
  });

  it('stores only a scrypt hash of the password', async () => {
    await createUser('hashcheck');
    const { rows } = await h.sql.query('SELECT password_hash FROM users WHERE lower_name = $1', ['hashcheck']);
    expect(rows[0].password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(rows[0].password_hash).not.toContain(PASSWORD);
  });

  it('keeps the given creation time and visibility', async () => {
    const created = new Date('2020-01-02T03:04:05Z');
    const { user } = await createUser('imported', { createdAt: created, visibility: 'limited', restricted: true, isAdmin: true });
    expect(user).toMatchObject({ created, updated: created, visibility: 'limited', restricted: true, isAdmin: true });
  });

  it('refuses a taken name in any case, and a taken email in any case, with no event', async () => {
    await createUser('bob');
    const rows = await newOutboxRows(async () => {
      await expect(createUser('BOB', { email: 'other@example.com' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: 'user already exists [name: BOB]',
        reason: 'user_exists',
      });
      await expect(createUser('robert', { email: 'Bob@EXAMPLE.com' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: 'e-mail already in use [email: Bob@EXAMPLE.com]',
        reason: 'email_used',
      });
    });
    expect(rows).toHaveLength(0);
  });

  it('gives one winner and the right message when two creates race', async () => {
    const rows = await newOutboxRows(async () => {
      const results = await Promise.allSettled([createUser('racer'), createUser('Racer', { email: 'racer2@example.com' })]);
      const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failures).toHaveLength(1);
      expect(failures[0].reason).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'user_exists' });
      expect(failures[0].reason.message).toMatch(/^user already exists \[name: [Rr]acer\]$/);
    });
    expect(rows).toHaveLength(1);
  });

  it.each([
    ['admin', 'name is reserved [name: admin]', 'name_reserved'],
    ['Login', 'name is reserved [name: login]', 'name_reserved'],
    ['carol.keys', 'name pattern is not allowed [pattern: *.keys]', 'name_reserved'],
    ['-carol', 'name is invalid [-carol]: must be valid alpha or numeric or dash(-_) or dot characters', 'name_invalid'],
    ['a'.repeat(41), `name is invalid [${'a'.repeat(41)}]: must be at most 40 characters`, 'name_invalid'],
  ])('refuses the name %s', async (username, message, reason) => {
    await expect(createUser(username, { email: 'reserved@example.com' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message,
      reason,
    });
  });

  it('refuses a bad email, a short password and an unknown visibility', async () => {
    await expect(createUser('dave', { email: 'not-an-address' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'e-mail address contains unsupported character [email: not-an-address]',
      reason: 'email_invalid',
    });
    await expect(createUser('dave', { email: '-dave@example.com' })).rejects.toMatchObject({
      message: 'e-mail invalid [email: -dave@example.com]',
      reason: 'email_invalid',
    });
    await expect(createUser('dave', { password: '123456789' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'password must be at least 10 characters',
      reason: 'password_too_short',
    });
    await expect(createUser('dave', { visibility: 'secret' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'visibility_invalid',
    });
  });

  it('lets an account of an external source have no password', async () => {
    const { user } = await createUser('ldapuser', { password: '', sourceId: 3, loginName: 'uid=ldapuser' });
    expect(user).toMatchObject({ sourceId: 3, loginName: 'uid=ldapuser' });
    await expect(h.users.authenticatePassword({ login: 'ldapuser', password: '', clientAddress: '' })).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
    });
  });
});

const ADMIN_VIEWER = { userId: 999_999, isAdmin: true, isRestricted: false };

describe('GetUser / BatchGetUsers', () => {
  it('finds a user by id and by name in any case', async () => {
    const { user } = await createUser('Erin');
    await expect(h.users.getUser({ id: user!.id, viewer: ADMIN_VIEWER })).resolves.toEqual({ user });
    await expect(h.users.getUser({ username: 'erin', viewer: ADMIN_VIEWER })).resolves.toEqual({ user });
    await expect(h.users.getUser({ username: 'ERIN', viewer: ADMIN_VIEWER })).resolves.toEqual({ user });
  });

  it('answers NOT_FOUND with Gitea message', async () => {
    await expect(h.users.getUser({ id: 999999 })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: 'user does not exist [uid: 999999, name: ]',
      reason: 'user_not_found',
    });
    await expect(h.users.getUser({ username: 'nobody' })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: 'user does not exist [uid: 0, name: nobody]',
    });
  });

  it('returns the users that exist among the ids', async () => {
    const a = (await createUser('batch1')).user!;
    const b = (await createUser('batch2')).user!;
    const { users } = await h.users.batchGetUsers({ ids: [b.id, 999999, a.id, a.id], viewer: ADMIN_VIEWER });
    expect(users.map((u) => u.id).sort((x, y) => x - y)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(users.find((u) => u.id === a.id)).toEqual(a);
    await expect(h.users.batchGetUsers({ ids: [] })).resolves.toEqual({ users: [] });
  });
});

describe('BatchGetUsersByEmail', () => {
  it('answers the active users owning the addresses, in any case, each address as asked', async () => {
    const author = (await createUser('author1', { email: 'Author.One@Example.com' })).user!;
    const committer = (await createUser('committer1')).user!;
    const { users } = await h.users.batchGetUsersByEmail({
      emails: ['author.one@EXAMPLE.com', 'committer1@example.com', 'Author.One@Example.com', 'committer1@example.com', 'nobody@example.com', ''],
      viewer: ADMIN_VIEWER,
    });
    const byEmail = new Map(users.map((found) => [found.email, found.user]));
    expect([...byEmail.keys()].sort()).toEqual(['Author.One@Example.com', 'author.one@EXAMPLE.com', 'committer1@example.com']);
    expect(users).toHaveLength(3);
    expect(byEmail.get('author.one@EXAMPLE.com')).toEqual(author);
    expect(byEmail.get('committer1@example.com')).toEqual(committer);
    await expect(h.users.batchGetUsersByEmail({ emails: [] })).resolves.toEqual({ users: [] });
  });

  it('leaves out inactive users and organizations', async () => {
    const { user } = await createUser('dormant1');
    await h.users.updateUser({ id: user!.id, actorId: 0, active: false });
    const orgs = createRpcClient(OrgServiceService, { target: `127.0.0.1:${h.service.port}`, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      const { user: founder } = await createUser('founder1');
      await orgs.createOrg(
        CreateOrgRequest.fromPartial({ actor: { userId: founder!.id, isAdmin: false, isRestricted: false }, name: 'mailorg1', email: 'team@mailorg.example' }),
      );
    } finally {
      orgs.close();
    }
    const emails = ['dormant1@example.com', 'team@mailorg.example'];
    await expect(h.users.batchGetUsersByEmail({ emails, viewer: ADMIN_VIEWER })).resolves.toEqual({ users: [] });
  });

  it('shapes the users for the viewer: an anonymous caller sees the placeholder e-mail and no account details', async () => {
    const { user } = await createUser('shaped1', { isAdmin: true });
    const { users } = await h.users.batchGetUsersByEmail({ emails: ['shaped1@example.com'] });
    expect(users).toHaveLength(1);
    expect(users[0].email).toBe('shaped1@example.com');
    expect(users[0].user).toMatchObject({ id: user!.id, login: 'shaped1', isAdmin: false });
    expect(users[0].user!.email).not.toBe('shaped1@example.com');
  });
});

describe('UpdateUser', () => {
  it('changes only the fields that are set and names them in one event', async () => {
    const { user } = await createUser('frank', { fullName: 'Frank' });
    let updated;
    const rows = await newOutboxRows(async () => {
      ({ user: updated } = await h.users.updateUser({
        id: user!.id,
        actorId: 1,
        location: 'Berlin',
        isAdmin: true,
        maxRepoCreation: 3,
        fullName: 'Frank',
        visibility: 'private',
      }));
    });
    expect(updated).toEqual({
      ...user,
      location: 'Berlin',
      isAdmin: true,
      maxRepoCreation: 3,
      visibility: 'private',
      updated: expect.any(Date),
    });
    expect(rows).toHaveLength(1);
    expect(rows[0].subject).toBe('cairn.user.updated');
    const event = decodeEvent(UserUpdated, rows[0].data);
    expect(event.changed).toEqual(['location', 'is_admin', 'max_repo_creation', 'visibility']);
    expect(event.user).toEqual(updated);
    expect(event.meta).toMatchObject({ eventId: rows[0].id, actorId: 1 });
  });

  it('records nothing when nothing changes', async () => {
    const { user } = await createUser('gina');
    const rows = await newOutboxRows(async () => {
      await expect(h.users.updateUser({ id: user!.id, actorId: 0, fullName: '', active: true })).resolves.toEqual({ user });
    });
    expect(rows).toHaveLength(0);
  });

  it('changes the password without publishing it', async () => {
    const { user } = await createUser('hank');
    const rows = await newOutboxRows(() =>
      h.users.updateUser({ id: user!.id, actorId: 0, password: 'a-brand-new-password', mustChangePassword: true }),
    );
    expect(rows).toHaveLength(1);
    const event = decodeEvent(UserUpdated, rows[0].data);
    expect(event.changed).toEqual(['must_change_password', 'password']);
    expect(rows[0].data.toString()).not.toContain('a-brand-new-password');
    await expect(h.users.authenticatePassword({ login: 'hank', password: PASSWORD, clientAddress: '' })).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
    });
    await expect(h.users.authenticatePassword({ login: 'hank', password: 'a-brand-new-password', clientAddress: '' })).resolves.toMatchObject({
      user: { id: user!.id, mustChangePassword: true },
    });
  });

  it('validates what it changes', async () => {
    const { user } = await createUser('ivan');
    await createUser('ivy');
    await expect(h.users.updateUser({ id: user!.id, actorId: 0, password: 'short' })).rejects.toMatchObject({
      reason: 'password_too_short',
    });
    await expect(h.users.updateUser({ id: user!.id, actorId: 0, email: '' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'e-mail invalid [email: ]',
    });
    await expect(h.users.updateUser({ id: user!.id, actorId: 0, email: 'IVY@example.com' })).rejects.toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'e-mail already in use [email: IVY@example.com]',
      reason: 'email_used',
    });
    // Its own address in another case is not a conflict.
    await expect(h.users.updateUser({ id: user!.id, actorId: 0, email: 'IVAN@example.com' })).resolves.toMatchObject({
      user: { email: 'IVAN@example.com' },
    });
    await expect(h.users.updateUser({ id: 999999, actorId: 0, location: 'x' })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      reason: 'user_not_found',
    });
  });
});

describe('DeleteUser', () => {
  it('deletes the user and its tokens, with one cairn.user.deleted event', async () => {
    const { user } = await createUser('judy');
    await h.tokens.createAccessToken({ userId: user!.id, name: 't1', scopes: ['all'], actorId: 0 });
    await h.tokens.createAccessToken({ userId: user!.id, name: 't2', scopes: ['read:user'], actorId: 0 });
    const rows = await newOutboxRows(() => h.users.deleteUser({ id: user!.id, actorId: 9, purge: true }));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.user.deleted']);
    expect(decodeEvent(UserDeleted, rows[0].data)).toMatchObject({ userId: user!.id, login: 'judy', purge: true, meta: { actorId: 9 } });
    await expect(h.users.getUser({ id: user!.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const { rows: left } = await h.sql.query('SELECT count(*)::int AS n FROM access_tokens WHERE user_id = $1', [user!.id]);
    expect(left[0].n).toBe(0);
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    await expect(h.users.deleteUser({ id: 999999, actorId: 0, purge: false })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      reason: 'user_not_found',
    });
  });
});

describe('AuthenticatePassword', () => {
  it('accepts the right password by name or email, in any case, and records the login', async () => {
    const { user } = await createUser('Kim');
    const byName = await h.users.authenticatePassword({ login: 'kim', password: PASSWORD, clientAddress: '' });
    expect(byName.user!.id).toBe(user!.id);
    expect(byName.user!.lastLogin!.getTime()).toBeGreaterThan(0);
    const byEmail = await h.users.authenticatePassword({ login: ' KIM@example.com ', password: PASSWORD, clientAddress: '' });
    expect(byEmail.user!.id).toBe(user!.id);
  });

  it('gives one answer for a wrong password and an unknown user', async () => {
    await createUser('leo');
    const expected = { code: Code.UNAUTHENTICATED, message: 'invalid username, password or token' };
    await expect(h.users.authenticatePassword({ login: 'leo', password: 'wrong-password', clientAddress: '' })).rejects.toMatchObject(expected);
    await expect(h.users.authenticatePassword({ login: 'nobody', password: PASSWORD, clientAddress: '' })).rejects.toMatchObject(expected);
    await expect(h.users.authenticatePassword({ login: 'nobody@example.com', password: PASSWORD, clientAddress: '' })).rejects.toMatchObject(expected);
    await expect(h.users.authenticatePassword({ login: '', password: '', clientAddress: '' })).rejects.toMatchObject(expected);
  });

  it('still authenticates inactive and prohibited users, leaving the decision to the gateway', async () => {
    const { user } = await createUser('mia');
    await h.users.updateUser({ id: user!.id, actorId: 0, active: false, prohibitLogin: true });
    await expect(h.users.authenticatePassword({ login: 'mia', password: PASSWORD, clientAddress: '' })).resolves.toMatchObject({
      user: { active: false, prohibitLogin: true },
    });
  });
});
