import type { AccessToken, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { TokenCache } from './token-cache';

const user = (id: number) => ({ id, login: `u${id}` }) as User;
const token = (id: number, userId: number) => ({ id, userId, scopes: ['all'] }) as unknown as AccessToken;

describe('TokenCache', () => {
  it('keeps entries for the TTL only', () => {
    let now = 1000;
    const cache = new TokenCache({ ttlMs: 100, now: () => now });
    cache.set('secret', { token: token(1, 1), user: user(1) });
    expect(cache.get('secret')?.user.id).toBe(1);
    now += 99;
    expect(cache.get('secret')).toBeDefined();
    now += 1;
    expect(cache.get('secret')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = new TokenCache({ maxEntries: 2 });
    cache.set('a', { token: token(1, 1), user: user(1) });
    cache.set('b', { token: token(2, 1), user: user(1) });
    cache.set('a', { token: token(1, 1), user: user(1) }); // refreshed: now the newest
    cache.set('c', { token: token(3, 2), user: user(2) });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('forgets by token and by user', () => {
    const cache = new TokenCache();
    cache.set('a', { token: token(1, 1), user: user(1) });
    cache.set('b', { token: token(2, 1), user: user(1) });
    cache.set('c', { token: token(3, 2), user: user(2) });
    cache.forgetToken(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.forgetUser(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeDefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('does not keep secrets in the clear', () => {
    const cache = new TokenCache();
    cache.set('0123456789abcdef0123456789abcdef01234567', { token: token(1, 1), user: user(1) });
    // Its memory is an ExpiringMap whose own `entries` Map holds the keys.
    const memory = (cache as unknown as { entries: { entries: Map<string, unknown> } }).entries.entries;
    expect(memory.size).toBe(1);
    expect(JSON.stringify([...memory.keys()])).not.toContain('0123456789abcdef');
  });
});
