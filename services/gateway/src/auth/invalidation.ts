/**
 * Keeps every gateway instance's token cache, and its public user cache (cache/public-users.ts) when it has one,
 * honest: accounts publishes when a token is deleted or a user changes, is renamed or goes, and each instance
 * evicts what it holds. Every instance must see every event, so this is
 * a broadcast subscription (`bus.subscribe`), not a durable consumer whose messages a group would share.
 */
import type { Bus, BroadcastHandler, Subscription } from '@cairn/bus';
import { decodeEvent } from '@cairn/bus';
import type { Logger } from '@cairn/log';
import { AccessTokenDeleted, UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { PublicUserCache } from '../cache/public-users';
import type { TokenCache } from './token-cache';

/** The part of the bus the gateway uses. */
export type GatewayBus = Pick<Bus, 'subscribe'>;

export const SUBJECT_ACCESS_TOKEN_DELETED = 'cairn.access_token.deleted';
export const SUBJECT_USER_UPDATED = 'cairn.user.updated';
export const SUBJECT_USER_DELETED = 'cairn.user.deleted';
export const SUBJECT_USER_RENAMED = 'cairn.user.renamed';
/** The subjects the token cache listens to. */
export const TOKEN_CACHE_SUBJECTS: readonly string[] = [SUBJECT_ACCESS_TOKEN_DELETED, SUBJECT_USER_UPDATED, SUBJECT_USER_DELETED, SUBJECT_USER_RENAMED];

/** The caches one instance keeps honest. */
interface Caches {
  tokens: TokenCache;
  users: PublicUserCache | undefined;
}

function clearAll({ tokens, users }: Caches): void {
  tokens.clear();
  users?.clear();
}

/** Forgets one user everywhere (their tokens' cached sign-ins, their public profile); everyone when the event names none. */
function forgetUser(caches: Caches, user: { id: number } | undefined): void {
  if (user === undefined) {
    clearAll(caches);
    return;
  }
  caches.tokens.forgetUser(user.id);
  caches.users?.forget(user.id);
}

/** What one event makes the caches forget. */
function evict(caches: Caches, subject: string, data: Uint8Array): void {
  switch (subject) {
    case SUBJECT_ACCESS_TOKEN_DELETED:
      caches.tokens.forgetToken(decodeEvent(AccessTokenDeleted, data).tokenId);
      break;
    case SUBJECT_USER_UPDATED:
      forgetUser(caches, decodeEvent(UserUpdated, data).user);
      break;
    case SUBJECT_USER_DELETED:
      forgetUser(caches, { id: decodeEvent(UserDeleted, data).userId });
      break;
    case SUBJECT_USER_RENAMED:
      // Cached sign-ins and profiles carry the old name.
      forgetUser(caches, decodeEvent(UserRenamed, data).user);
      break;
  }
}

export interface TokenInvalidationOptions {
  bus: GatewayBus;
  cache: TokenCache;
  /** The public user cache, when the gateway keeps one. */
  users?: PublicUserCache;
  logger: Logger;
}

/** Subscribes the cache to the events that revoke tokens; resolves once every subscription is in place. */
export async function subscribeTokenInvalidation({ bus, cache, users, logger }: TokenInvalidationOptions): Promise<Subscription> {
  const caches: Caches = { tokens: cache, users };
  const handler: BroadcastHandler = (message) => {
    try {
      evict(caches, message.subject, message.data);
    } catch (error) {
      // An event we cannot read might have revoked anything: forget everything rather than guess.
      logger.warn({ err: error, subject: message.subject }, 'unreadable invalidation event; token and user caches cleared');
      clearAll(caches);
    }
  };
  const subscriptions = await Promise.all(
    TOKEN_CACHE_SUBJECTS.map((subject) => bus.subscribe(subject, handler)),
  );
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    },
  };
}
