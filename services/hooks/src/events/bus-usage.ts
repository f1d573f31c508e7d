import type { BusUsage } from '@cairn/bus';
import { EVENTS_STREAMS } from '@cairn/events';
import { GIT_CONSUMER, GIT_FILTER, GIT_STREAM, ISSUES_CONSUMER, ISSUES_FILTER, ISSUES_STREAM, REPOS_CONSUMER, REPOS_FILTER, REPOS_STREAM } from './streams';

/**
 * hooks on the bus (see @cairn/bus usage.ts): owns the public event stream's two streams (its outbox relay publishes
 * them); consumes git, issues and repos events.
 *
 * Each consumer takes one message at a time (`maxAckPending: 1`, over every replica sharing the durable, a failed
 * message waiting for its redelivery included): the public stream promises each subject of one repository in the
 * order the changes committed, and every event type comes from one source stream, handled here strictly in that
 * stream's order. Its outbox rows are written in processOnce's transaction, one event after the other, so the relay
 * publishes them in that order too.
 */
export const BUS_USAGE: BusUsage = {
  service: 'hooks',
  owns: [...EVENTS_STREAMS],
  consumers: [
    { stream: GIT_STREAM, durable: GIT_CONSUMER, filterSubject: GIT_FILTER, maxAckPending: 1 },
    { stream: ISSUES_STREAM, durable: ISSUES_CONSUMER, filterSubject: ISSUES_FILTER, maxAckPending: 1 },
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: REPOS_FILTER, maxAckPending: 1 },
  ],
  broadcasts: [],
};
