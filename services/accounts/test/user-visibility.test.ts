/**
 * Users as viewers see them, through the real service and database: lookup, search and the admin list
 * (results and totals), e-mail shaping and e-mail matching, per viewer.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code } from '@cairn/rpc';
import { startHarness, type Harness } from './harness';

let h: Harness;
const u: Record<string, User> = {};
const viewers: Record<string, Actor | undefined> = {};

async function create(username: string, fields: { visibility?: string; restricted?: boolean; isAdmin?: boolean; fullName?: string; email?: string } = {}) {
  const { user } = await h.users.createUser({
    username,
    email: fields.email ?? `${username}@example.com`,
    password: 'password-1234',
    fullName: fields.fullName ?? '',
    loginName: '',
    sourceId: 0,
    mustChangePassword: false,
    restricted: fields.restricted ?? false,
    visibility: fields.visibility ?? '',
    isAdmin: fields.isAdmin ?? false,
    actorId: 0,
  });
  u[username] = user!;
  return user!;
}

const actor = (user: User): Actor => ({ userId: user.id, isAdmin: user.isAdmin, isRestricted: user.restricted });

/** An organization with one team holding `members` (rows written directly: organizations are not this file's subject). */
async function orgWithTeam(name: string, visibility: string, members: User[]): Promise<number> {
  const org = await h.sql.query<{ id: number }>(
    `INSERT INTO users (name, lower_name, email, type, visibility) VALUES ($1, lower($1), '', 1, $2) RETURNING id::int AS id`,
    [name, visibility],
  );
  const orgId = org.rows[0].id;
  const team = await h.sql.query<{ id: number }>(
    `INSERT INTO teams (org_id, name, lower_name, access_mode) VALUES ($1, 'Owners', 'owners', 4) RETURNING id::int AS id`,
    [orgId],
  );
  for (const member of members) {
    await h.sql.query('INSERT INTO team_users (team_id, org_id, uid) VALUES ($1, $2, $3)', [team.rows[0].id, orgId, member.id]);
    await h.sql.query('INSERT INTO org_users (org_id, uid) VALUES ($1, $2)', [orgId, member.id]);
  }
  return orgId;
}

beforeAll(async () => {
  h = await startHarness({ CAIRN__SERVICE__NO_REPLY_ADDRESS: 'noreply.test' });
  await create('pub', { fullName: 'Public Person' });
  await create('lim', { visibility: 'limited', fullName: 'Limited Person' });
  await create('priv', { visibility: 'private', fullName: 'Private Person' });
  await create('plain');
  await create('res', { restricted: true });
  await create('root', { isAdmin: true });
  await create('mate');
  await create('hidden_mail', { email: 'secret-box@example.com' });
  await h.users.updateUser({ id: u.hidden_mail.id, actorId: u.hidden_mail.id, keepEmailPrivate: true });
  await create('open_mail', { email: 'open-box@example.com' });
  // `mate` shares an organization with `priv`.
  await orgWithTeam('crew', 'private', [u.priv, u.mate]);
  viewers.anonymous = undefined;
  viewers.plain = actor(u.plain);
  viewers.restricted = actor(u.res);
  viewers.admin = actor(u.root);
  viewers.mate = actor(u.mate);
});

afterAll(async () => {
  await h?.stop();
});

describe('GetUser for a viewer', () => {
  // viewer → [public, limited, private] visible?
  const matrix: Record<string, [boolean, boolean, boolean]> = {
    anonymous: [true, false, false],
    plain: [true, true, false],
    restricted: [true, false, false],
    admin: [true, true, true],
    mate: [true, true, true],
  };

  it.each(Object.entries(matrix))('%s', async (viewer, expected) => {
    const seen = await Promise.all(
      ['pub', 'lim', 'priv'].map((name) =>
        h.users.getUser({ username: name, viewer: viewers[viewer] }).then(
          () => true,
          (error: { code: number; message: string }) => {
            // A hidden user is answered exactly as a missing one.
            expect(error).toMatchObject({ code: Code.NOT_FOUND, message: `user does not exist [uid: 0, name: ${name}]` });
            return false;
          },
        ),
      ),
    );
    expect(seen).toEqual(expected);
  });

  it('shows every user to themselves, by id too', async () => {
    await expect(h.users.getUser({ id: u.priv.id, viewer: actor(u.priv) })).resolves.toMatchObject({ user: { login: 'priv' } });
    await expect(h.users.getUser({ id: u.priv.id })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: `user does not exist [uid: ${u.priv.id}, name: ]`,
    });
  });

  it('shapes the answer for the viewer', async () => {
    const anonymous = (await h.users.getUser({ username: 'open_mail' })).user!;
    expect(anonymous.email).toBe(`${u.open_mail.id}+open_mail@noreply.test`);
    const plain = (await h.users.getUser({ username: 'open_mail', viewer: viewers.plain })).user!;
    expect(plain).toMatchObject({ email: 'open-box@example.com', active: false, isAdmin: false });
    expect((await h.users.getUser({ username: 'hidden_mail', viewer: viewers.plain })).user!.email).toBe(
      `${u.hidden_mail.id}+hidden_mail@noreply.test`,
    );
    expect((await h.users.getUser({ username: 'hidden_mail', viewer: viewers.admin })).user).toMatchObject({
      email: 'secret-box@example.com',
      active: true,
      keepEmailPrivate: true,
    });
  });

  it('shapes BatchGetUsers for the viewer without filtering', async () => {
    const { users } = await h.users.batchGetUsers({ ids: [u.priv.id, u.hidden_mail.id], viewer: viewers.plain });
    expect(users.map((user) => user.login).sort()).toEqual(['hidden_mail', 'priv']);
    expect(users.find((user) => user.login === 'hidden_mail')!.email).toBe(`${u.hidden_mail.id}+hidden_mail@noreply.test`);
  });
});

describe('SearchUsers', () => {
  const search = (viewer: Actor | undefined, keyword = '', extra: { uid?: number; page?: { page: number; limit: number }; publicOnly?: boolean } = {}) =>
    h.users.searchUsers({ viewer, keyword, uid: extra.uid ?? 0, page: extra.page, publicOnly: extra.publicOnly ?? false });

  const logins = (users: User[]) => users.map((user) => user.login);

  it.each([
    ['anonymous', ['pub']],
    ['plain', ['lim', 'pub']],
    ['restricted', ['pub']],
    ['admin', ['lim', 'priv', 'pub']],
    ['mate', ['lim', 'priv', 'pub']],
  ])('lists what %s may see, and counts only that', async (viewer, expected) => {
    const { users, total } = await search(viewers[viewer], ' Person');
    expect(logins(users)).toEqual(expected);
    expect(total).toBe(expected.length);
  });

  it('counts every visible match while paging, alphabetically', async () => {
    const everyone = await search(viewers.admin);
    expect(everyone.total).toBe(everyone.users.length);
    expect(logins(everyone.users)).toEqual([...logins(everyone.users)].sort());
    const page2 = await search(viewers.admin, '', { page: { page: 2, limit: 3 } });
    expect(page2.total).toBe(everyone.total);
    expect(logins(page2.users)).toEqual(logins(everyone.users).slice(3, 6));
    // Organizations never appear.
    expect(logins(everyone.users)).not.toContain('crew');
  });

  it('matches name and full name in any case', async () => {
    expect(logins((await search(viewers.admin, 'PUB')).users)).toEqual(['pub']);
    expect(logins((await search(viewers.admin, 'limited pers')).users)).toEqual(['lim']);
  });

  it('matches an e-mail only where the viewer could read it', async () => {
    const matches = async (viewer: Actor | undefined, keyword: string) => logins((await search(viewer, keyword)).users);
    expect(await matches(viewers.anonymous, 'open-box')).toEqual([]);
    expect(await matches(viewers.plain, 'open-box')).toEqual(['open_mail']);
    expect(await matches(viewers.plain, 'secret-box')).toEqual([]);
    expect(await matches(actor(u.hidden_mail), 'secret-box')).toEqual(['hidden_mail']);
    expect(await matches(viewers.admin, 'secret-box')).toEqual(['hidden_mail']);
    const { users, total } = await search(viewers.plain, 'secret-box');
    expect([users.length, total]).toEqual([0, 0]);
  });

  it('takes LIKE wildcards in the keyword literally', async () => {
    await create('under_line');
    await create('underXline');
    await create('percent', { fullName: '100% sure' });
    expect(logins((await search(viewers.admin, 'under_l')).users)).toEqual(['under_line']);
    expect(logins((await search(viewers.admin, '%')).users)).toEqual(['percent']);
    expect((await search(viewers.admin, '\\')).total).toBe(0);
  });

  it('filters by uid, and answers the pseudo users', async () => {
    expect(logins((await search(viewers.admin, '', { uid: u.lim.id })).users)).toEqual(['lim']);
    expect((await search(viewers.anonymous, '', { uid: u.lim.id })).total).toBe(0);
    expect(await search(viewers.anonymous, '', { uid: -1 })).toMatchObject({ total: 1, users: [{ id: -1, login: 'Ghost' }] });
    expect(await search(viewers.anonymous, '', { uid: -2 })).toMatchObject({ total: 1, users: [{ id: -2, login: 'gitea-actions' }] });
  });

  it('keeps to public users for a public-only token', async () => {
    expect(logins((await search(viewers.admin, ' Person', { publicOnly: true })).users)).toEqual(['pub']);
  });

  it('shapes every result for the viewer', async () => {
    const { users } = await search(viewers.anonymous, 'open_mail');
    expect(users[0]).toMatchObject({ email: `${u.open_mail.id}+open_mail@noreply.test`, active: false });
  });
});

describe('ListUsers (site administration)', () => {
  const list = (fields: Partial<Parameters<Harness['users']['listUsers']>[0]> = {}) =>
    h.users.listUsers({ viewer: viewers.admin, keyword: '', visibility: '', sourceId: 0, loginName: '', sort: '', order: '', ...fields });

  it('filters by visibility, flags and keyword', async () => {
    expect((await list({ visibility: 'private' })).users.map((user) => user.login)).toEqual(['priv']);
    expect((await list({ isAdmin: true })).users.map((user) => user.login)).toEqual(['root']);
    expect((await list({ isRestricted: true })).users.map((user) => user.login)).toEqual(['res']);
    expect((await list({ isActive: false })).total).toBe(0);
    expect((await list({ isTwoFactorEnabled: true })).total).toBe(0);
    expect((await list({ keyword: 'secret-box' })).users.map((user) => user.login)).toEqual(['hidden_mail']);
    expect((await list({ loginName: 'nobody' })).total).toBe(0);
  });

  it('sorts by id, creation and name, both ways', async () => {
    const ids = (await list({ sort: 'id', order: 'desc' })).users.map((user) => user.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const created = (await list({ sort: 'created' })).users.map((user) => user.id);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    const names = (await list({ sort: 'name', order: 'desc' })).users.map((user) => user.login.toLowerCase());
    expect(names).toEqual([...names].sort().reverse());
  });

  it('refuses an unknown sort, order or visibility', async () => {
    await expect(list({ sort: 'email' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid sort and order parameters' });
    await expect(list({ sort: 'id', order: 'up' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(list({ visibility: 'secret' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid visibility parameter' });
  });

  it('still applies the visibility rule to whoever asks', async () => {
    const { users } = await h.users.listUsers({ viewer: viewers.plain, keyword: ' Person', visibility: '', sourceId: 0, loginName: '', sort: '', order: '' });
    expect(users.map((user) => user.login)).toEqual(['lim', 'pub']);
  });
});
