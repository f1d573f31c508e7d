/**
 * The `notifications-accounts` consumer: a deleted user's notification threads go (Gitea's services/user/delete.go
 * deletes the user's `Notification` rows), once per event — recorded with the deletion (`processOnce`).
 */
import { type Bus, type BusHandler, type Subscription, processOnce } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { deleteUserThreads } from '../store/thread-removals';
import { ACCOUNTS_CONSUMER, ACCOUNTS_STREAM, AccountsSubject } from './issues-stream';
import { readEvent } from './read-event';

export interface AccountsConsumerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** Durable name; tests give their own. */
  durable?: string;
}

export function startAccountsConsumer(options: AccountsConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? ACCOUNTS_CONSUMER;
  return options.bus.consume({
    stream: ACCOUNTS_STREAM,
    durable,
    filterSubject: AccountsSubject.userDeleted,
    handler: userDeletedHandler(options.db, options.logger, durable),
  });
}

/** Handles one `cairn.user.deleted`; an unreadable message is logged and acknowledged (redelivery changes nothing). */
export function userDeletedHandler(db: Database, logger: Logger, consumer: string = ACCOUNTS_CONSUMER): BusHandler {
  return async (message) => {
    const read = readEvent(UserDeleted, message);
    if ('problem' in read) {
      logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable account event');
      return;
    }
    const { event, eventId } = read;
    if (event.userId <= 0) return;
    await processOnce(db, consumer, eventId, async (tx) => void (await deleteUserThreads(tx, event.userId)));
  };
}
