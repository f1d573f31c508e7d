/**
 * An event's payload for the work a consumer does before `applyOnce` records it (batches in their own
 * transactions); undefined when it cannot be read, which `applyOnce` then logs and drops.
 */
import { type BusMessage, type EventDecoder, decodeEvent } from '@cairn/bus';

export function readEvent<T>(type: EventDecoder<T>, message: BusMessage): T | undefined {
  try {
    return decodeEvent(type, message.data);
  } catch {
    return undefined;
  }
}
