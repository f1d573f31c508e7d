import type { BusUsage } from '@cairn/bus';
import { GIT_CONSUMER, GIT_FILTER, GIT_STREAM, ISSUES_CONSUMER, ISSUES_FILTER, ISSUES_STREAM, REPOS_CONSUMER, REPOS_FILTER, REPOS_STREAM } from './streams';

/** hooks on the bus (see @cairn/bus usage.ts): publishes nothing yet; consumes git, issues and repos events. */
export const BUS_USAGE: BusUsage = {
  service: 'hooks',
  consumers: [
    { stream: GIT_STREAM, durable: GIT_CONSUMER, filterSubject: GIT_FILTER },
    { stream: ISSUES_STREAM, durable: ISSUES_CONSUMER, filterSubject: ISSUES_FILTER },
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: REPOS_FILTER },
  ],
  broadcasts: [],
};
