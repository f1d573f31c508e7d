import type { BusUsage } from '@cairn/bus';
import {
  ACCOUNTS_STREAM,
  COMMENTS_CONSUMER,
  ConsumedSubject,
  ISSUES_CONSUMER,
  ISSUES_STREAM,
  REPOS_CONSUMER,
  REPOS_STREAM,
  USERS_CONSUMER,
} from './consumed';
import { SOCIAL_STREAM, SOCIAL_SUBJECTS } from './subjects';

/** social on the bus (see @cairn/bus usage.ts): its own stream; binds to (never creates) the streams it consumes. */
export const BUS_USAGE: BusUsage = {
  service: 'social',
  owns: [{ name: SOCIAL_STREAM, subjects: SOCIAL_SUBJECTS }],
  consumers: [
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: ConsumedSubject.repoEvents },
    { stream: ACCOUNTS_STREAM, durable: USERS_CONSUMER, filterSubject: ConsumedSubject.userEvents },
    { stream: ISSUES_STREAM, durable: ISSUES_CONSUMER, filterSubject: ConsumedSubject.issueDeleted },
    { stream: ISSUES_STREAM, durable: COMMENTS_CONSUMER, filterSubject: ConsumedSubject.commentDeleted },
  ],
  broadcasts: [],
};
