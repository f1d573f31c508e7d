/**
 * Keeps every gateway instance's token cache honest: accounts publishes when a token is deleted or a user
 * changes, is renamed or goes, and each instance evicts what it holds. Every instance must see every event, so this is
 * a broadcast subscription (`bus.subscribe`), not a durable consumer whose messages a group would share.
 */
import type { Bus, BroadcastHandler, Subscription } from '@cairn/bus';
import { decodeEvent } from '@cairn/bus';
import type { Logger } from '@cairn/log';
import { AccessTokenDeleted, UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { TokenCache } from './token-cache';

/** The part of the bus the gateway uses. */
export type GatewayBus = Pick<Bus, 'subscribe'>;

export const SUBJECT_ACCESS_TOKEN_DELETED = 'cairn.access_token.deleted';
export const SUBJECT_USER_UPDATED = 'cairn.user.updated';
export const SUBJECT_USER_DELETED = 'cairn.user.deleted';
export const SUBJECT_USER_RENAMED = 'cairn.user.renamed';

/** What one event makes the cache forget. */
function evict(cache: TokenCache, subject: string, data: Uint8Array): void {
  switch (subject) {
    case SUBJECT_ACCESS_TOKEN_DELETED:
      cache.forgetToken(decodeEvent(AccessTokenDeleted, data).tokenId);
      break;
    case SUBJECT_USER_UPDATED: {
      const user = decodeEvent(UserUpdated, data).user;
      if (user === undefined) cache.clear();
      else cache.forgetUser(user.id);
      break;
    }
    case SUBJECT_USER_DELETED:
      cache.forgetUser(decodeEvent(UserDeleted, data).userId);
      break;
    case SUBJECT_USER_RENAMED: {
      // Cached sign-ins carry the old name.
      const user = decodeEvent(UserRenamed, data).user;
      if (user === undefined) cache.clear();
      else cache.forgetUser(user.id);
      break;
    }
  }
}

export interface TokenInvalidationOptions {
  bus: GatewayBus;
  cache: TokenCache;
  logger: Logger;
}

/** Subscribes the cache to the events that revoke tokens; resolves once every subscription is in place. */
export async function subscribeTokenInvalidation({ bus, cache, logger }: TokenInvalidationOptions): Promise<Subscription> {
  const handler: BroadcastHandler = (message) => {
    try {
      evict(cache, message.subject, message.data);
    } catch (error) {
      // An event we cannot read might have revoked anything: forget everything rather than guess.
      logger.warn({ err: error, subject: message.subject }, 'unreadable invalidation event; token cache cleared');
      cache.clear();
    }
  };
  const subscriptions = await Promise.all(
    [SUBJECT_ACCESS_TOKEN_DELETED, SUBJECT_USER_UPDATED, SUBJECT_USER_DELETED, SUBJECT_USER_RENAMED].map((subject) => bus.subscribe(subject, handler)),
  );
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    },
  };
}
