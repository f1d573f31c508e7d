/**
 * Writes issues' events into the transactional outbox, in the transaction of the change they report; the relay
 * publishes them after commit. Each event's id is its outbox id, its JetStream message id and `meta.event_id`.
 * Each area builds its own payloads (events/*-events.ts) on this one helper.
 */
import { encodeEvent, enqueueEvent, uuidv7, type EventEncoder } from '@cairn/bus';
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';

export interface EventIds {
  actorId: number;
  repoId: number;
}

export function enqueue<T>(tx: DatabaseTransactionConnection, subject: string, type: EventEncoder<T>, ids: EventIds, build: (meta: EventMeta) => T): Promise<string> {
  const id = uuidv7();
  const meta: EventMeta = { eventId: id, occurredAt: new Date(), actorId: ids.actorId, repoId: ids.repoId };
  return enqueueEvent(tx, { id, subject, data: encodeEvent(type, build(meta)) });
}
