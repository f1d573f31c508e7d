import { createHash } from 'node:crypto';
import { decodeEvent } from '@cairn/bus';
import { AccessTokenCreated, AccessTokenDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { Code } from '@cairn/rpc';
import { startHarness, type Harness } from './harness';

let h: Harness;
let ownerId: number;
let otherId: number;

beforeAll(async () => {
  h = await startHarness();
  const base = { password: 'password-1234', fullName: '', loginName: '', sourceId: 0, mustChangePassword: false, restricted: false, visibility: '', isAdmin: false, actorId: 0 };
  ownerId = (await h.users.createUser({ ...base, username: 'owner', email: 'owner@example.com' })).user!.id;
  otherId = (await h.users.createUser({ ...base, username: 'other', email: 'other@example.com' })).user!.id;
});

afterAll(async () => {
  await h?.stop();
});

function createToken(name: string, scopes: string[] = ['read:repository'], userId = ownerId) {
  return h.tokens.createAccessToken({ userId, name, scopes, actorId: userId });
}

async function newOutboxRows(change: () => Promise<unknown>) {
  const before = (await h.outbox()).length;
  await change();
  return (await h.outbox()).slice(before);
}

describe('CreateAccessToken', () => {
  it('returns the secret once, stores only its hash, and records one event without it', async () => {
    let created!: Awaited<ReturnType<typeof createToken>>;
    const rows = await newOutboxRows(async () => {
      created = await createToken('ci', ['write:repository', 'read:repository', 'read:user']);
    });
    const { token, sha1 } = created;
    expect(sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(token).toMatchObject({
      userId: ownerId,
      name: 'ci',
      scopes: ['write:repository', 'read:user'],
      tokenLastEight: sha1.slice(-8),
      lastUsedAt: undefined,
    });
    expect(token!.createdAt).toBeInstanceOf(Date);

    const { rows: stored } = await h.sql.query('SELECT t::text AS whole, token_hash FROM access_tokens t WHERE id = $1', [token!.id]);
    expect(stored[0].whole).not.toContain(sha1);
    expect(stored[0].token_hash).toBe(createHash('sha256').update(sha1).digest('hex'));

    expect(rows).toHaveLength(1);
    expect(rows[0].subject).toBe('cairn.access_token.created');
    expect(rows[0].data.toString()).not.toContain(sha1);
    const event = decodeEvent(AccessTokenCreated, rows[0].data);
    expect(event.token).toEqual(token);
    expect(event.meta).toMatchObject({ eventId: rows[0].id, actorId: ownerId });
  });

  it('refuses a used name for the same user, not for another user', async () => {
    await createToken('dup');
    const rows = await newOutboxRows(async () => {
      await expect(createToken('dup')).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: 'access token name has been used already',
        reason: 'token_name_used',
      });
    });
    expect(rows).toHaveLength(0);
    await expect(createToken('dup', ['read:user'], otherId)).resolves.toMatchObject({ token: { name: 'dup', userId: otherId } });
  });

  it('validates and normalises scopes', async () => {
    await expect(createToken('noscope', [])).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'access token must have a scope',
      reason: 'token_scope',
    });
    await expect(createToken('badscope', ['read:user', 'read:everything'])).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'invalid access token scope provided: invalid access token scope: read:everything',
      reason: 'token_scope',
    });
    await expect(createToken('everything', ['read:user', 'all', 'public-only'])).resolves.toMatchObject({
      token: { scopes: ['public-only', 'all'] },
    });
  });

  it('refuses an empty name and an unknown user', async () => {
    await expect(createToken('')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'token_name_invalid' });
    await expect(createToken('x', ['all'], 999999)).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'user_not_found' });
  });
});

describe('ListAccessTokens', () => {
  it('pages newest first with the total', async () => {
    const user = await h.users.createUser({
      username: 'lister',
      email: 'lister@example.com',
      password: 'password-1234',
      fullName: '',
      loginName: '',
      sourceId: 0,
      mustChangePassword: false,
      restricted: false,
      visibility: '',
      isAdmin: false,
      actorId: 0,
    });
    const userId = user.user!.id;
    for (const name of ['t1', 't2', 't3', 't4', 't5']) await createToken(name, ['read:user'], userId);

    const first = await h.tokens.listAccessTokens({ userId, page: { page: 1, limit: 2 } });
    expect(first.total).toBe(5);
    expect(first.tokens.map((t) => t.name)).toEqual(['t5', 't4']);
    const last = await h.tokens.listAccessTokens({ userId, page: { page: 3, limit: 2 } });
    expect(last.tokens.map((t) => t.name)).toEqual(['t1']);
    const beyond = await h.tokens.listAccessTokens({ userId, page: { page: 4, limit: 2 } });
    expect(beyond).toEqual({ tokens: [], total: 5 });
    const all = await h.tokens.listAccessTokens({ userId });
    expect(all.tokens.map((t) => t.name)).toEqual(['t5', 't4', 't3', 't2', 't1']);
    expect(all.tokens[0]).not.toHaveProperty('sha1');
  });
});

describe('DeleteAccessToken', () => {
  it('deletes by id and by name, with one event each', async () => {
    const byId = (await createToken('del-by-id')).token!;
    const byName = (await createToken('del-by-name')).token!;
    let rows = await newOutboxRows(() => h.tokens.deleteAccessToken({ userId: ownerId, idOrName: String(byId.id), actorId: 5 }));
    expect(rows.map((r) => r.subject)).toEqual(['cairn.access_token.deleted']);
    expect(decodeEvent(AccessTokenDeleted, rows[0].data)).toMatchObject({ tokenId: byId.id, userId: ownerId, meta: { actorId: 5 } });
    rows = await newOutboxRows(() => h.tokens.deleteAccessToken({ userId: ownerId, idOrName: 'del-by-name', actorId: 0 }));
    expect(decodeEvent(AccessTokenDeleted, rows[0].data)).toMatchObject({ tokenId: byName.id });
    const names = (await h.tokens.listAccessTokens({ userId: ownerId })).tokens.map((t) => t.name);
    expect(names).not.toContain('del-by-id');
    expect(names).not.toContain('del-by-name');
  });

  it("answers NOT_FOUND for an unknown token and for another user's token", async () => {
    const others = (await createToken('not-yours', ['read:user'], otherId)).token!;
    const rows = await newOutboxRows(async () => {
      await expect(h.tokens.deleteAccessToken({ userId: ownerId, idOrName: String(others.id), actorId: 0 })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'token_not_found',
      });
      await expect(h.tokens.deleteAccessToken({ userId: ownerId, idOrName: 'no-such-token', actorId: 0 })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
      await expect(h.tokens.deleteAccessToken({ userId: ownerId, idOrName: '999999', actorId: 0 })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
      });
    });
    expect(rows).toHaveLength(0);
  });
});

describe('AuthenticateToken', () => {
  it('resolves a secret to its token and user, and marks it used', async () => {
    const { token, sha1 } = await createToken('auth', ['read:user']);
    const first = await h.tokens.authenticateToken({ token: sha1 });
    expect(first.token).toMatchObject({ id: token!.id, name: 'auth', scopes: ['read:user'] });
    expect(first.token!.lastUsedAt).toBeInstanceOf(Date);
    expect(first.user).toMatchObject({ id: ownerId, login: 'owner' });
    // A second use within the minute keeps the recorded time.
    const second = await h.tokens.authenticateToken({ token: sha1 });
    expect(second.token!.lastUsedAt).toEqual(first.token!.lastUsedAt);
    const listed = (await h.tokens.listAccessTokens({ userId: ownerId })).tokens.find((t) => t.id === token!.id);
    expect(listed!.lastUsedAt).toEqual(first.token!.lastUsedAt);
  });

  it('refreshes last_used_at once it is older than a minute', async () => {
    const { token, sha1 } = await createToken('stale', ['read:user']);
    await h.sql.query("UPDATE access_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [token!.id]);
    const before = Date.now() - 60_000;
    const { token: used } = await h.tokens.authenticateToken({ token: sha1 });
    expect(used!.lastUsedAt!.getTime()).toBeGreaterThan(before);
  });

  it('refuses unknown, malformed and deleted tokens alike', async () => {
    const expected = { code: Code.UNAUTHENTICATED, message: 'invalid username, password or token' };
    await expect(h.tokens.authenticateToken({ token: 'f'.repeat(40) })).rejects.toMatchObject(expected);
    await expect(h.tokens.authenticateToken({ token: 'not-a-token' })).rejects.toMatchObject(expected);
    await expect(h.tokens.authenticateToken({ token: '' })).rejects.toMatchObject(expected);
    const { sha1 } = await createToken('gone');
    await h.tokens.deleteAccessToken({ userId: ownerId, idOrName: 'gone', actorId: 0 });
    await expect(h.tokens.authenticateToken({ token: sha1 })).rejects.toMatchObject(expected);
  });
});
