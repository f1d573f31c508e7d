/**
 * The `social-users` consumer, over every user event in order: a deleted user's stars and watches are forgotten
 * and taken off their repositories' counters, and their reactions removed, as Gitea's DeleteUser does; a renamed
 * user's reactions carry the new name. Other user events are acknowledged untouched.
 *
 * Reactions' user names are a copy of accounts' state, and renames can arrive out of order (several relays,
 * redeliveries): each carries the account's version, and a name is written only when its rename is at least as new
 * as the last one applied for that user (`claimVersion`), so an older name never replaces a newer one.
 */
import { applyOnce, claimVersion, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserDeleted, UserRenamed } from '@cairn/proto/cairn/accounts/v1/events';
import { deleteUserReactions, renameReactionUser } from '../store/reactions';
import { deleteUserLinks } from '../store/removals';
import { ACCOUNTS_STREAM, ConsumedSubject, USERS_CONSUMER } from './consumed';

export interface UserEventsOptions {
  db: Database;
  logger: Logger;
}

export function userEventsHandler({ db, logger }: UserEventsOptions): BusHandler {
  const common = { db, logger, consumer: USERS_CONSUMER };
  const handlers: Readonly<Record<string, BusHandler>> = {
    [ConsumedSubject.userDeleted]: applyOnce({
      ...common,
      type: UserDeleted,
      apply: async (tx, event) => {
        if (event.userId <= 0) return;
        await deleteUserLinks(tx, event.userId);
        await deleteUserReactions(tx, event.userId);
      },
    }),
    [ConsumedSubject.userRenamed]: applyOnce({
      ...common,
      type: UserRenamed,
      apply: async (tx, event) => {
        const user = event.user;
        if (user === undefined || user.id <= 0 || user.login === '') return;
        if (await claimVersion(tx, { consumer: USERS_CONSUMER, key: `user:${user.id}:name`, version: event.version })) {
          await renameReactionUser(tx, user.id, user.login);
        }
      },
    }),
  };
  return async (message) => {
    await handlers[message.subject]?.(message);
  };
}

export function startUserEventsConsumer(options: UserEventsOptions & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: ACCOUNTS_STREAM,
    durable: USERS_CONSUMER,
    filterSubject: ConsumedSubject.userEvents,
    handler: userEventsHandler(options),
  });
}
