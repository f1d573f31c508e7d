/**
 * Short-lived memory of resolved access tokens, so a client sending the same token on every request costs
 * one AuthenticateToken per TTL instead of one per request. Keyed by the SHA-256 of the secret (the secret
 * itself is never kept). Events from accounts evict entries early: a deleted token, or an updated or
 * deleted user, must stop working everywhere at once, not after the TTL.
 */
import { hash } from 'node:crypto';
import type { AccessToken, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { ExpiringMap } from '../cache/expiring-map';

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

export class TokenCache {
  private readonly entries: ExpiringMap<string, ResolvedToken>;

  constructor(options: TokenCacheOptions = {}) {
    this.entries = new ExpiringMap({ ttlMs: options.ttlMs ?? 30_000, maxEntries: options.maxEntries ?? 10_000, now: options.now });
  }

  private static key(secret: string): string {
    // The one-shot hash: a cached token costs this on every request, and a Hash object would cost 3× more.
    return hash('sha256', secret, 'hex');
  }

  get(secret: string): ResolvedToken | undefined {
    return this.entries.get(TokenCache.key(secret));
  }

  set(secret: string, value: ResolvedToken): void {
    this.entries.set(TokenCache.key(secret), value);
  }

  /** Forgets one token (deleted). */
  forgetToken(tokenId: number): void {
    this.entries.forgetWhere((value) => value.token.id === tokenId);
  }

  /** Forgets every token of a user (the user changed or is gone). */
  forgetUser(userId: number): void {
    this.entries.forgetWhere((value) => value.user.id === userId);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
