/**
 * Reading a consumed message as its event, for the consumers that apply each event once by its id.
 */
import { type BusMessage, decodeEvent, type EventDecoder } from '@cairn/bus';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The event with its id (`meta.eventId`, the key `processOnce` records), or why the message can never be applied. */
export function readEvent<T extends { meta?: EventMeta | undefined }>(
  type: EventDecoder<T>,
  message: BusMessage,
): { event: T; eventId: string } | { problem: string } {
  let event: T;
  try {
    event = decodeEvent(type, message.data);
  } catch {
    return { problem: 'payload is not JSON' };
  }
  const eventId = event.meta?.eventId ?? '';
  if (!UUID.test(eventId)) return { problem: 'meta.eventId is not a UUID' };
  return { event, eventId };
}
