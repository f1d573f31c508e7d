/**
 * The sign-in throttle against a real database, shared by two accounts processes (replicas): limits from
 * [security] LOGIN_*, refusals before any password is hashed, successes clearing their own run of failures.
 */
import { Code, isCairnError } from '@cairn/rpc';
import { startHarness, type Harness, type Replica } from './harness';

const PASSWORD = 'password-123';
const THROTTLED = { code: Code.RESOURCE_EXHAUSTED, reason: 'sign_in_throttled' };
const INVALID = { code: Code.UNAUTHENTICATED, message: 'invalid username, password or token' };

let h: Harness;
let replica: Replica;

beforeAll(async () => {
  h = await startHarness({
    CAIRN__SECURITY__LOGIN_MAX_FAILURES: '3',
    CAIRN__SECURITY__LOGIN_MAX_ACCOUNT_FAILURES: '5',
    CAIRN__SECURITY__LOGIN_MAX_ADDRESS_FAILURES: '6',
    CAIRN__SECURITY__LOGIN_BLOCK_SECONDS: '120',
  });
  replica = await h.startReplica();
});

afterAll(async () => {
  await replica.stop();
  await h.stop();
});

/** Each failure from `address`, taking turns between the two replicas. */
async function fail(login: string, address: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const users = i % 2 === 0 ? h.users : replica.users;
    await expect(users.authenticatePassword({ login, password: 'wrong-password', clientAddress: address })).rejects.toMatchObject(INVALID);
  }
}

describe('sign-in throttle', () => {
  it('refuses an (account, address) after LOGIN_MAX_FAILURES failures in a row on every replica, even with the right password, and counts refused attempts nowhere', async () => {
    await h.createUser('ann');
    await fail('ann', '198.51.100.1', 3);
    for (const users of [h.users, replica.users]) {
      const refusal: unknown = await users
        .authenticatePassword({ login: 'ann', password: PASSWORD, clientAddress: '198.51.100.1' })
        .then(() => undefined, (error: unknown) => error);
      if (!isCairnError(refusal)) throw new Error(`expected a refusal, got ${String(refusal)}`);
      expect(refusal).toMatchObject(THROTTLED);
      expect(refusal.retryAfterSeconds).toBeGreaterThan(100);
      expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(120);
    }
    // By e-mail it is the same account; from another address the owner still signs in.
    await expect(h.users.authenticatePassword({ login: 'ann@example.com', password: PASSWORD, clientAddress: '198.51.100.1' })).rejects.toMatchObject(THROTTLED);
    await expect(replica.users.authenticatePassword({ login: 'ann', password: PASSWORD, clientAddress: '198.51.100.2' })).resolves.toMatchObject({
      user: { login: 'ann' },
    });
    const rows = await h.sql.query<{ key: string; failures: number }>("SELECT key, failures FROM sign_in_failures WHERE key LIKE '%198.51.100.1%' ORDER BY key");
    expect(rows.rows.map((row) => row.key)).toEqual(['address:198.51.100.1', expect.stringMatching(/^pair:user:\d+\|198\.51\.100\.1$/)]);
    // The refused attempts counted nothing more.
    expect(rows.rows.map((row) => row.failures)).toEqual([3, 3]);
  });

  it('lets a success end a run of failures of its own (account, address)', async () => {
    await h.createUser('ben');
    await fail('ben', '198.51.100.10', 2);
    await expect(h.users.authenticatePassword({ login: 'ben', password: PASSWORD, clientAddress: '198.51.100.10' })).resolves.toBeDefined();
    await fail('ben', '198.51.100.10', 2);
    await expect(replica.users.authenticatePassword({ login: 'ben', password: PASSWORD, clientAddress: '198.51.100.10' })).resolves.toBeDefined();
  });

  it('refuses an account from every address after LOGIN_MAX_ACCOUNT_FAILURES failures spread over addresses', async () => {
    await h.createUser('cat');
    for (const address of ['198.51.100.20', '198.51.100.21', '198.51.100.22', '198.51.100.23', '198.51.100.24']) await fail('cat', address, 1);
    await expect(replica.users.authenticatePassword({ login: 'cat', password: PASSWORD, clientAddress: '198.51.100.99' })).rejects.toMatchObject(THROTTLED);
    // Without an address only the account counts, and it is blocked.
    await expect(h.users.authenticatePassword({ login: 'cat', password: PASSWORD, clientAddress: '' })).rejects.toMatchObject(THROTTLED);
  });

  it('keeps letting in an address that signed in to the account before, while the account is blocked for others', async () => {
    await h.createUser('hal');
    await expect(replica.users.authenticatePassword({ login: 'hal', password: PASSWORD, clientAddress: '198.51.100.60' })).resolves.toBeDefined();
    for (const address of ['198.51.100.70', '198.51.100.71', '198.51.100.72', '198.51.100.73', '198.51.100.74']) await fail('hal', address, 1);
    await expect(h.users.authenticatePassword({ login: 'hal', password: PASSWORD, clientAddress: '198.51.100.61' })).rejects.toMatchObject(THROTTLED);
    await expect(h.users.authenticatePassword({ login: 'hal', password: PASSWORD, clientAddress: '198.51.100.60' })).resolves.toMatchObject({
      user: { login: 'hal' },
    });
    // Its own run of failures still blocks it.
    await fail('hal', '198.51.100.60', 3);
    await expect(replica.users.authenticatePassword({ login: 'hal', password: PASSWORD, clientAddress: '198.51.100.60' })).rejects.toMatchObject(THROTTLED);
  });

  it('refuses an address trying many accounts after LOGIN_MAX_ADDRESS_FAILURES, unknown names included, per IPv6 /64', async () => {
    await h.createUser('dan');
    const names = ['nobody1', 'nobody2', 'nobody3', 'nobody4', 'nobody5', 'nobody6'];
    for (const [i, name] of names.entries()) await fail(name, `2001:db8:7:7::${i + 1}`, 1);
    await expect(h.users.authenticatePassword({ login: 'dan', password: PASSWORD, clientAddress: '2001:db8:7:7:ffff::1' })).rejects.toMatchObject(THROTTLED);
    await expect(h.users.authenticatePassword({ login: 'dan', password: PASSWORD, clientAddress: '2001:db8:7:8::1' })).resolves.toBeDefined();
  });

  it('answers an unknown name the way it answers an account (no hint which names exist)', async () => {
    await h.createUser('eve');
    await fail('eve', '198.51.100.30', 3);
    await fail('nosuchuser', '198.51.100.31', 3);
    await expect(h.users.authenticatePassword({ login: 'eve', password: 'x', clientAddress: '198.51.100.30' })).rejects.toMatchObject(THROTTLED);
    await expect(h.users.authenticatePassword({ login: 'nosuchuser', password: 'x', clientAddress: '198.51.100.31' })).rejects.toMatchObject(THROTTLED);
  });

  it('refuses password checks beyond PASSWORD_CHECK_CONCURRENCY + PASSWORD_CHECK_QUEUE at once, as busy', async () => {
    const narrow = await startHarness({ CAIRN__SECURITY__PASSWORD_CHECK_CONCURRENCY: '1', CAIRN__SECURITY__PASSWORD_CHECK_QUEUE: '0' });
    try {
      await narrow.createUser('gus');
      const attempts = await Promise.allSettled(
        Array.from({ length: 10 }, () => narrow.users.authenticatePassword({ login: 'gus', password: PASSWORD, clientAddress: '198.51.100.50' })),
      );
      const refused = attempts.filter((attempt) => attempt.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.length).toBeLessThan(10);
      for (const attempt of refused) {
        expect(attempt.reason).toMatchObject({ code: Code.RESOURCE_EXHAUSTED, reason: 'password_checks_busy', retryAfterSeconds: 1 });
      }
      // Shed checks are no failures: nothing was counted against the account or the address.
      const rows = await narrow.sql.query('SELECT key FROM sign_in_failures WHERE failures > 0');
      expect(rows.rows).toEqual([]);
    } finally {
      await narrow.stop();
    }
  });

  it('starts counting again once the window is over', async () => {
    await h.createUser('fay');
    await fail('fay', '198.51.100.40', 3);
    await expect(h.users.authenticatePassword({ login: 'fay', password: PASSWORD, clientAddress: '198.51.100.40' })).rejects.toMatchObject(THROTTLED);
    // As if the window (900 s) and the block had passed.
    await h.sql.query(
      "UPDATE sign_in_failures SET window_started_at = now() - interval '901 seconds', blocked_until = now() - interval '1 second' WHERE key LIKE 'pair:%|198.51.100.40'",
    );
    await fail('fay', '198.51.100.40', 1);
    await expect(h.users.authenticatePassword({ login: 'fay', password: PASSWORD, clientAddress: '198.51.100.40' })).resolves.toBeDefined();
  });
});
