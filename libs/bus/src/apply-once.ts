/**
 * A consumer's handler that applies each event exactly once: the event id is recorded in the transaction of
 * the effect (`processOnce`) and the message acknowledged only after that commit, so a redelivered or
 * republished event changes nothing.
 */
import type { Database, DatabaseTransactionConnection } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { decodeEvent, type EventDecoder } from './codec';
import { processOnce } from './idempotency';
import type { BusHandler } from './types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApplyOnceOptions<T> {
  db: Database;
  logger: Logger;
  /** The durable consumer's name: the key its processed event ids are recorded under. */
  consumer: string;
  type: EventDecoder<T>;
  apply(tx: DatabaseTransactionConnection, event: T): Promise<void>;
}

/**
 * A message that can never be applied (not JSON of the type, no UUID event id) is logged and acknowledged:
 * redelivering it would change nothing. A database failure throws, so the bus redelivers the message.
 */
export function applyOnce<T extends { meta?: { eventId: string } | undefined }>(options: ApplyOnceOptions<T>): BusHandler {
  const { db, logger, consumer, type, apply } = options;
  return async (message) => {
    let event: T;
    try {
      event = decodeEvent(type, message.data);
    } catch (error) {
      logger.error({ err: error, consumer, subject: message.subject, event_id: message.id, problem: 'payload is not JSON' }, 'dropping an unreadable event');
      return;
    }
    const eventId = event.meta?.eventId ?? '';
    if (!UUID.test(eventId)) {
      logger.error({ consumer, subject: message.subject, event_id: message.id, problem: 'meta.eventId is not a UUID' }, 'dropping an unreadable event');
      return;
    }
    await processOnce(db, consumer, eventId, (tx) => apply(tx, event));
  };
}
