/** RenameUser and ResolveName: names, the redirects renames leave, and who may follow them. */
import { decodeEvent } from '@cairn/bus';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code } from '@cairn/rpc';
import { startHarness, type Harness } from './harness';

let h: Harness;
const ADMIN: Actor = { userId: 1_000_000, isAdmin: true, isRestricted: false };

let created = 0;

async function create(username: string, visibility = ''): Promise<User> {
  created += 1;
  const { user } = await h.users.createUser({
    username,
    email: `user${created}@example.com`,
    password: 'password-1234',
    fullName: '',
    loginName: '',
    sourceId: 0,
    mustChangePassword: false,
    restricted: false,
    visibility,
    isAdmin: false,
    actorId: 0,
  });
  return user!;
}

const rename = (id: number, newName: string) => h.users.renameUser({ id, newName, actorId: 77 });
const resolve = (name: string, viewer?: Actor) => h.users.resolveName({ name, viewer });

async function redirects(): Promise<Array<{ lower_name: string; redirect_user_id: number }>> {
  const { rows } = await h.sql.query('SELECT lower_name, redirect_user_id::int AS redirect_user_id FROM user_redirects ORDER BY lower_name');
  return rows;
}

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

describe('RenameUser', () => {
  it('renames, leaves a redirect behind and records cairn.user.renamed', async () => {
    const user = await create('Olga');
    const before = (await h.outbox()).length;
    const { user: renamed } = await rename(user.id, 'Olivia');
    expect(renamed).toMatchObject({ id: user.id, login: 'Olivia' });
    await expect(h.users.getUser({ username: 'olivia', viewer: ADMIN })).resolves.toMatchObject({ user: { id: user.id } });
    await expect(h.users.getUser({ username: 'olga', viewer: ADMIN })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await redirects()).toContainEqual({ lower_name: 'olga', redirect_user_id: user.id });

    const rows = (await h.outbox()).slice(before);
    expect(rows.map((row) => row.subject)).toEqual(['cairn.user.renamed']);
    const event = decodeEvent(UserRenamed, rows[0].data);
    expect(event).toMatchObject({ oldLogin: 'Olga', user: { id: user.id, login: 'Olivia' }, meta: { actorId: 77 } });
  });

  it("versions each change of the account in its event, so consumers can order them", async () => {
    const user = await create('Vera');
    const before = (await h.outbox()).length;
    await rename(user.id, 'Veronika');
    await h.users.updateUser({ id: user.id, actorId: 0, visibility: 'private' });
    await rename(user.id, 'Nika');
    const rows = (await h.outbox()).slice(before);
    expect(rows.map((row) => row.subject)).toEqual(['cairn.user.renamed', 'cairn.user.updated', 'cairn.user.renamed']);
    const versions = [
      decodeEvent(UserRenamed, rows[0].data).version,
      decodeEvent(UserUpdated, rows[1].data).version,
      decodeEvent(UserRenamed, rows[2].data).version,
    ];
    expect(versions[0]).toBeGreaterThan(0);
    expect(versions[1]).toBeGreaterThan(versions[0]);
    expect(versions[2]).toBeGreaterThan(versions[1]);
  });

  it('resolves the old name to the new one, the current name to itself', async () => {
    const user = await create('Pavel');
    await rename(user.id, 'Pasha');
    await expect(resolve('PAVEL')).resolves.toEqual({ id: user.id, type: 0, name: 'Pasha', redirect: true, visibility: 'public' });
    await expect(resolve('pasha')).resolves.toEqual({ id: user.id, type: 0, name: 'Pasha', redirect: false, visibility: 'public' });
    await expect(resolve('nobody-at-all')).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: 'user redirect does not exist [name: nobody-at-all]',
    });
  });

  it('changes only the case without a redirect', async () => {
    const user = await create('quinn');
    await expect(rename(user.id, 'Quinn')).resolves.toMatchObject({ user: { login: 'Quinn' } });
    expect((await redirects()).map((row) => row.lower_name)).not.toContain('quinn');
  });

  it('does nothing for the same name', async () => {
    const user = await create('rosa');
    const before = (await h.outbox()).length;
    await expect(rename(user.id, 'rosa')).resolves.toMatchObject({ user: { login: 'rosa' } });
    expect(await h.outbox()).toHaveLength(before);
  });

  it("refuses a taken name in any case, and a name that is not usable, with Gitea's messages", async () => {
    const user = await create('sven');
    await create('taken');
    await expect(rename(user.id, 'TAKEN')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message: 'user already exists [name: TAKEN]' });
    for (const [name, message] of [
      ['api', 'name is reserved [name: api]'],
      ['assets', 'name is reserved [name: assets]'],
      ['admin', 'name is reserved [name: admin]'],
      ['', 'name is empty'],
      ['no spaces', 'name is invalid [no spaces]: must be valid alpha or numeric or dash(-_) or dot characters'],
    ]) {
      await expect(rename(user.id, name)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message });
    }
    await expect(rename(999_999, 'whoever')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(resolve('sven')).resolves.toMatchObject({ name: 'sven', redirect: false, visibility: 'public' });
  });

  it('frees an old name for someone else: a rename or a new account takes it from the redirect', async () => {
    const first = await create('tara');
    await rename(first.id, 'tara2');
    const second = await create('uma');
    await rename(second.id, 'tara');
    expect((await redirects()).map((row) => row.lower_name)).not.toContain('tara');
    await expect(resolve('tara')).resolves.toEqual({ id: second.id, type: 0, name: 'tara', redirect: false, visibility: 'public' });
    // `uma` now leads to the second user; a new account named so takes it over.
    await expect(resolve('uma')).resolves.toMatchObject({ id: second.id, redirect: true, visibility: 'public' });
    const third = await create('uma');
    expect((await redirects()).map((row) => row.lower_name)).not.toContain('uma');
    await expect(resolve('uma')).resolves.toEqual({ id: third.id, type: 0, name: 'uma', redirect: false, visibility: 'public' });
  });

  it('points an old name taken back by the first owner at the right account', async () => {
    const user = await create('vera');
    await rename(user.id, 'vera2');
    await rename(user.id, 'vera');
    await expect(resolve('vera')).resolves.toMatchObject({ id: user.id, redirect: false, visibility: 'public' });
    await expect(resolve('vera2')).resolves.toMatchObject({ id: user.id, name: 'vera', redirect: true, visibility: 'public' });
  });

  it('drops the redirects of a deleted user', async () => {
    const user = await create('walt');
    await rename(user.id, 'walter');
    await h.users.deleteUser({ id: user.id, actorId: 0, purge: false });
    await expect(resolve('walt')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('renames individual users only', async () => {
    const org = await h.sql.query<{ id: number }>(
      `INSERT INTO users (name, lower_name, email, type) VALUES ('xorg', 'xorg', '', 1) RETURNING id::int AS id`,
    );
    await expect(rename(org.rows[0].id, 'yorg')).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'xorg is an organization not a user',
    });
    await expect(h.users.deleteUser({ id: org.rows[0].id, actorId: 0, purge: false })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(resolve('xorg')).resolves.toMatchObject({ type: 1, name: 'xorg' });
  });
});

describe('ResolveName for a viewer', () => {
  it('answers NOT_FOUND for a name or a redirect leading to an account the viewer may not see', async () => {
    const hidden = await create('yara', 'private');
    await rename(hidden.id, 'yasmin');
    for (const name of ['yara', 'yasmin']) {
      await expect(resolve(name)).rejects.toMatchObject({ code: Code.NOT_FOUND, message: `user redirect does not exist [name: ${name}]` });
      await expect(resolve(name, { userId: hidden.id, isAdmin: false, isRestricted: false })).resolves.toMatchObject({ id: hidden.id });
      await expect(resolve(name, ADMIN)).resolves.toMatchObject({ id: hidden.id });
    }
  });

  it('applies the organization rule to organizations', async () => {
    const member = await create('zeno');
    const org = await h.sql.query<{ id: number }>(
      `INSERT INTO users (name, lower_name, email, type, visibility) VALUES ('secretorg', 'secretorg', '', 1, 'private') RETURNING id::int AS id`,
    );
    await h.sql.query('INSERT INTO org_users (org_id, uid) VALUES ($1, $2)', [org.rows[0].id, member.id]);
    const plain = await create('zack');
    await expect(resolve('secretorg', { userId: plain.id, isAdmin: false, isRestricted: false })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(resolve('secretorg', { userId: member.id, isAdmin: false, isRestricted: false })).resolves.toMatchObject({
      id: org.rows[0].id,
      type: 1,
    });
  });
});
