/**
 * Short-lived memory of resolved access tokens, so a client sending the same token on every request costs
 * one AuthenticateToken per TTL instead of one per request. Keyed by the SHA-256 of the secret (the secret
 * itself is never kept). Events from accounts evict entries early: a deleted token, or an updated or
 * deleted user, must stop working everywhere at once, not after the TTL.
 */
import { hash } from 'node:crypto';
import type { AccessToken, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export interface ResolvedToken {
  token: AccessToken;
  user: User;
}

export interface TokenCacheOptions {
  /** How long an entry is trusted. Default 30 s. */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  value: ResolvedToken;
  expiresAt: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TokenCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  private static key(secret: string): string {
    // The one-shot hash: a cached token costs this on every request, and a Hash object would cost 3× more.
    return hash('sha256', secret, 'hex');
  }

  get(secret: string): ResolvedToken | undefined {
    const key = TokenCache.key(secret);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(secret: string, value: ResolvedToken): void {
    const key = TokenCache.key(secret);
    this.entries.delete(key); // re-inserted last: Map order is the eviction order
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Forgets one token (deleted). */
  forgetToken(tokenId: number): void {
    this.forgetWhere((entry) => entry.value.token.id === tokenId);
  }

  /** Forgets every token of a user (the user changed or is gone). */
  forgetUser(userId: number): void {
    this.forgetWhere((entry) => entry.value.user.id === userId);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private forgetWhere(match: (entry: Entry) => boolean): void {
    for (const [key, entry] of this.entries) if (match(entry)) this.entries.delete(key);
  }
}
