/** Message headers as both adapters accept and deliver them (types.ts BusHeaders). */
import type { BusHeaders } from './types';

/** The header carrying the message id (JetStream's deduplication key); BusMessage.id, never in `headers`. */
export const MSG_ID_HEADER = 'Nats-Msg-Id';

/**
 * A NATS header name: printable ASCII without `:` (NATS headers follow MIME's field-name rule, as the client's
 * canonicalMIMEHeaderKey checks), so no whitespace either.
 */
const HEADER_NAME = /^[!-9;-~]+$/;
/** Headers JetStream acts on (`Nats-Expected-Stream`, `Nats-Rollup`, …): one in a row would make its publish fail or misbehave. */
const RESERVED_HEADER = /^nats-/i;

/**
 * Throws unless every header can travel as a NATS header: names of printable ASCII without `:` or whitespace and not
 * `Nats-*` (JetStream's own, the id included), values without CR or LF (they would end the header line). Checked at
 * publish and at enqueue, so a bad header fails the writer, not the outbox relay later.
 */
export function assertHeaders(headers: BusHeaders | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new Error(`invalid message header name "${name}": expected printable ASCII without ":" or whitespace`);
    if (RESERVED_HEADER.test(name)) throw new Error(`invalid message header name "${name}": Nats-* headers are JetStream's own`);
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw new Error(`invalid value of message header "${name}": expected text without CR or LF`);
  }
}

/**
 * The headers as delivered: NATS trims values (its client does on send), so the in-process bus stores them trimmed
 * too and both adapters hand consumers the same text.
 */
export function normalisedHeaders(headers: BusHeaders | undefined): Record<string, string> {
  assertHeaders(headers);
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, value.trim()]));
}

/**
 * A public event (CloudEvents headers) reaching a consumer or subscription of anything but the event stream
 * (`<prefix>.events.…`). Cairn never publishes one elsewhere, but a team allowed to create consumers on the public
 * stream can have a push consumer deliver it onto any subject (it keeps its own subject, so only the filter it reached
 * tells), and a stream capturing that subject stores it (NATS 2.9 cannot refuse that by permissions,
 * docs/security.md#nats). Both adapters drop such a message instead of handing it to a handler.
 */
export function isStrayPublicEvent(filterSubject: string, headers: BusHeaders): boolean {
  return headers['ce-specversion'] !== undefined && filterSubject.split('.')[1] !== 'events';
}
