import { Code } from '@cairn/rpc';
import {
  SIGN_IN_THROTTLED_REASON,
  accountKey,
  addressKey,
  pairToClear,
  refusedFor,
  signInThrottled,
  throttleCounters,
} from './sign-in-throttle';

const SETTINGS = { maxFailures: 5, maxAccountFailures: 50, maxAddressFailures: 100, windowSeconds: 900, blockSeconds: 60 };

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

describe('refusedFor', () => {
  it('is the longest block among the counters, or undefined when none blocks', () => {
    expect(refusedFor([])).toBeUndefined();
    expect(refusedFor([{ key: 'a', failures: 4, blockedForSeconds: 0 }])).toBeUndefined();
    expect(
      refusedFor([
        { key: 'a', failures: 5, blockedForSeconds: 12 },
        { key: 'b', failures: 60, blockedForSeconds: 45 },
      ]),
    ).toBe(45);
  });
});

describe('pairToClear', () => {
  it('names the pair only when it has failures to forget', () => {
    const pair = 'pair:user:7|203.0.113.9';
    expect(pairToClear([{ key: pair, failures: 2, blockedForSeconds: 0 }], 'user:7', '203.0.113.9')).toBe(pair);
    expect(pairToClear([{ key: 'account:user:7', failures: 9, blockedForSeconds: 0 }], 'user:7', '203.0.113.9')).toBeUndefined();
    expect(pairToClear([{ key: pair, failures: 2, blockedForSeconds: 0 }], 'user:7', '')).toBeUndefined();
  });
});

describe('signInThrottled', () => {
  it('is RESOURCE_EXHAUSTED with its reason and the seconds to wait', () => {
    expect(signInThrottled(42)).toMatchObject({ code: Code.RESOURCE_EXHAUSTED, reason: SIGN_IN_THROTTLED_REASON, retryAfterSeconds: 42 });
  });
});
