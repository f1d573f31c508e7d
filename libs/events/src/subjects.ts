/**
 * Subjects and streams of the public event stream, in the code's names (root `cairn`, stream head `CAIRN_`), which
 * @cairn/bus's prefixedBus turns into an installation's (`[bus] PREFIX`): `<prefix>.events.v1.<visibility>.<event>`
 * in `<PREFIX>_EVENTS_PUBLIC` or `<PREFIX>_EVENTS_PRIVATE`. Two streams, not one, because NATS 2.9 grants JetStream
 * API access per stream, not per filter: a team is given the public stream alone.
 */
import type { StreamSpec } from '@cairn/bus';
import { EVENT_TYPES, type EventType } from './catalogue';

/** The version in every subject: a payload change that breaks consumers comes with a new one (docs/events.md). */
export const EVENTS_VERSION = 'v1';

/** `public`: an anonymous caller could read what the event is about; `private`: anything else. */
export type EventVisibility = 'public' | 'private';

export const EVENTS_PUBLIC_STREAM = 'CAIRN_EVENTS_PUBLIC';
export const EVENTS_PRIVATE_STREAM = 'CAIRN_EVENTS_PRIVATE';

const ROOT = `cairn.events.${EVENTS_VERSION}`;

/** The filter of one visibility's events, or of both. */
export function eventsFilter(visibility?: EventVisibility): string {
  return visibility === undefined ? `${ROOT}.>` : `${ROOT}.${visibility}.>`;
}

export function eventsSubject(visibility: EventVisibility, eventType: EventType): string {
  return `${ROOT}.${visibility}.${eventType}`;
}

export function eventsStreamOf(visibility: EventVisibility): string {
  return visibility === 'public' ? EVENTS_PUBLIC_STREAM : EVENTS_PRIVATE_STREAM;
}

/** The two streams hooks owns, with the `[bus] EVENTS_*` limits. */
export const EVENTS_STREAMS: readonly StreamSpec[] = [
  { name: EVENTS_PUBLIC_STREAM, subjects: [eventsFilter('public')], kind: 'events' },
  { name: EVENTS_PRIVATE_STREAM, subjects: [eventsFilter('private')], kind: 'events' },
];

/** A code subject's visibility and event type; undefined for anything else (another version included). */
export function parseEventsSubject(subject: string): { visibility: EventVisibility; eventType: EventType } | undefined {
  const tokens = subject.split('.');
  if (tokens.length !== 5 || `${tokens[0]}.${tokens[1]}.${tokens[2]}` !== ROOT) return undefined;
  const [visibility, eventType] = [tokens[3], tokens[4]];
  if (visibility !== 'public' && visibility !== 'private') return undefined;
  if (!(EVENT_TYPES as readonly string[]).includes(eventType)) return undefined;
  return { visibility, eventType: eventType as EventType };
}
