/**
 * The `social-users` consumer: a deleted user's stars and watches are forgotten and taken off their
 * repositories' counters, as Gitea's DeleteUser does.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { deleteUserLinks } from '../store/removals';
import { ACCOUNTS_STREAM, ConsumedSubject, USERS_CONSUMER } from './consumed';

export interface UserEventsOptions {
  db: Database;
  logger: Logger;
}

export function userDeletedHandler({ db, logger }: UserEventsOptions): BusHandler {
  return applyOnce({
    db,
    logger,
    consumer: USERS_CONSUMER,
    type: UserDeleted,
    apply: async (tx, event) => {
      if (event.userId > 0) await deleteUserLinks(tx, event.userId);
    },
  });
}

export function startUserEventsConsumer(options: UserEventsOptions & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: ACCOUNTS_STREAM,
    durable: USERS_CONSUMER,
    filterSubject: ConsumedSubject.userDeleted,
    handler: userDeletedHandler(options),
  });
}
