import { Code } from '@cairn/rpc';
import {
  SIGN_IN_THROTTLED_REASON,
  type CounterReading,
  accountKey,
  addressKey,
  keysToRead,
  pairCounter,
  refusedFor,
  signInThrottled,
  successToRecord,
  throttleCounters,
} from './sign-in-throttle';

const DAY = 86_400;
const SETTINGS = {
  maxFailures: 5,
  maxAccountFailures: 50,
  maxAddressFailures: 100,
  windowSeconds: 900,
  blockSeconds: 60,
  knownAddressSeconds: 30 * DAY,
};
const PAIR = { key: 'pair:user:7|203.0.113.9', maxFailures: 5 };

function reading(key: string, fields: Partial<CounterReading> = {}): CounterReading {
  return { key, failures: 0, blockedForSeconds: 0, successAgeSeconds: undefined, ...fields };
}

describe('accountKey', () => {
  it('uses the id of a known account, whatever login named it, and the lower-cased login otherwise', () => {
    expect(accountKey(7, 'Alice')).toBe('user:7');
    expect(accountKey(7, 'alice@example.com')).toBe('user:7');
    expect(accountKey(undefined, 'NoBody')).toBe('login:nobody');
    expect(accountKey(undefined, 'x'.repeat(1000))).toBe(`login:${'x'.repeat(255)}`);
  });
});

describe('addressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6 and counts IPv6 per /64', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('is empty for no or an invalid address', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('not-an-ip')).toBe('');
    expect(addressKey('1.2.3.4, 5.6.7.8')).toBe('');
  });
});

describe('throttleCounters', () => {
  it('names the pair, account and address counters with their limits, sorted by key', () => {
    expect(throttleCounters('user:7', '203.0.113.9', SETTINGS)).toEqual([
      { key: 'account:user:7', maxFailures: 50 },
      { key: 'address:203.0.113.9', maxFailures: 100 },
      { key: 'pair:user:7|203.0.113.9', maxFailures: 5 },
    ]);
  });

  it('counts only the account without an address, and leaves out limits set to 0', () => {
    expect(throttleCounters('user:7', '', SETTINGS)).toEqual([{ key: 'account:user:7', maxFailures: 50 }]);
    expect(throttleCounters('user:7', '203.0.113.9', { ...SETTINGS, maxAccountFailures: 0, maxAddressFailures: 0 })).toEqual([
      { key: 'pair:user:7|203.0.113.9', maxFailures: 5 },
    ]);
  });
});

describe('pairCounter and keysToRead', () => {
  it('reads the (account, address) counter even when its limit is off, where successes are remembered', () => {
    expect(pairCounter('user:7', '203.0.113.9', SETTINGS)).toEqual(PAIR);
    expect(pairCounter('user:7', '', SETTINGS)).toBeUndefined();
    const off = { ...SETTINGS, maxFailures: 0 };
    const pair = pairCounter('user:7', '203.0.113.9', off);
    expect(keysToRead(throttleCounters('user:7', '203.0.113.9', off), pair)).toEqual([
      'account:user:7',
      'address:203.0.113.9',
      'pair:user:7|203.0.113.9',
    ]);
    expect(keysToRead(throttleCounters('user:7', '203.0.113.9', SETTINGS), PAIR)).toHaveLength(3);
  });
});

describe('refusedFor', () => {
  it('is the longest block among the counters, or undefined when none blocks', () => {
    expect(refusedFor([], 'user:7', PAIR, SETTINGS)).toBeUndefined();
    expect(refusedFor([reading(PAIR.key, { failures: 4 })], 'user:7', PAIR, SETTINGS)).toBeUndefined();
    const readings = [reading(PAIR.key, { failures: 5, blockedForSeconds: 12 }), reading('account:user:7', { failures: 60, blockedForSeconds: 45 })];
    expect(refusedFor(readings, 'user:7', PAIR, SETTINGS)).toBe(45);
  });

  it("exempts an address that signed in within LOGIN_KNOWN_ADDRESS_DAYS from the account's block, not from the others", () => {
    const accountBlocked = reading('account:user:7', { failures: 60, blockedForSeconds: 45 });
    expect(refusedFor([accountBlocked, reading(PAIR.key, { successAgeSeconds: 3 * DAY })], 'user:7', PAIR, SETTINGS)).toBeUndefined();
    expect(refusedFor([accountBlocked, reading(PAIR.key, { successAgeSeconds: 31 * DAY })], 'user:7', PAIR, SETTINGS)).toBe(45);
    expect(refusedFor([accountBlocked, reading(PAIR.key, { successAgeSeconds: 3 * DAY })], 'user:7', PAIR, { ...SETTINGS, knownAddressSeconds: 0 })).toBe(45);
    const pairBlocked = reading(PAIR.key, { failures: 5, blockedForSeconds: 30, successAgeSeconds: DAY });
    expect(refusedFor([accountBlocked, pairBlocked], 'user:7', PAIR, SETTINGS)).toBe(30);
    expect(refusedFor([accountBlocked, reading('address:203.0.113.9', { blockedForSeconds: 20 }), reading(PAIR.key, { successAgeSeconds: 1 })], 'user:7', PAIR, SETTINGS)).toBe(20);
    // Without an address nothing is known.
    expect(refusedFor([accountBlocked], 'user:7', undefined, SETTINGS)).toBe(45);
  });
});

describe('successToRecord', () => {
  it('writes to end a run of failures, to remember a new address, and to refresh it at most daily', () => {
    expect(successToRecord([], PAIR, SETTINGS)).toBe(true);
    expect(successToRecord([reading(PAIR.key, { failures: 2, successAgeSeconds: 60 })], PAIR, SETTINGS)).toBe(true);
    expect(successToRecord([reading(PAIR.key, { successAgeSeconds: 60 })], PAIR, SETTINGS)).toBe(false);
    expect(successToRecord([reading(PAIR.key, { successAgeSeconds: DAY })], PAIR, SETTINGS)).toBe(true);
    expect(successToRecord([], undefined, SETTINGS)).toBe(false);
  });

  it('writes only to end a run of failures when addresses are not remembered', () => {
    const off = { ...SETTINGS, knownAddressSeconds: 0 };
    expect(successToRecord([], PAIR, off)).toBe(false);
    expect(successToRecord([reading(PAIR.key, { failures: 1 })], PAIR, off)).toBe(true);
  });
});

describe('signInThrottled', () => {
  it('is RESOURCE_EXHAUSTED with its reason and the seconds to wait', () => {
    expect(signInThrottled(42)).toMatchObject({ code: Code.RESOURCE_EXHAUSTED, reason: SIGN_IN_THROTTLED_REASON, retryAfterSeconds: 42 });
  });
});
