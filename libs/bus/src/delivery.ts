/** Delivery rules both adapters share, so they behave alike. */
import type { Logger } from '@cairn/log';
import type { BusMessage } from './types';

export const DEFAULT_ACK_WAIT_MS = 30_000;

/** Delay before a failed message comes back: 250 ms doubling per delivery, capped at 30 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(250 * 2 ** Math.max(0, deliveryCount - 1), 30_000);
}

/** True when this delivery was the last one `maxDeliver` (≤ 0: unlimited) allows. */
export function isLastDelivery(deliveryCount: number, maxDeliver: number): boolean {
  return maxDeliver > 0 && deliveryCount >= maxDeliver;
}

export function logHandlerFailure(logger: Logger, error: unknown, message: BusMessage, maxDeliver: number): void {
  const fields = { err: error, event_id: message.id, subject: message.subject, delivery_count: message.deliveryCount };
  if (isLastDelivery(message.deliveryCount, maxDeliver)) logger.error(fields, 'event handler failed on its last delivery; giving up on the event');
  else logger.warn(fields, 'event handler failed; the event will be redelivered');
}
