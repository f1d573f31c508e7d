import type { BusUsage } from '@cairn/bus';
import { AUTO_MERGE_CONSUMER, AUTO_MERGE_REVIEWS_CONSUMER, REVIEW_EVENTS } from './auto-merge-consumer';
import { COMMIT_REFS_CONSUMER } from './commit-refs-consumer';
import { GIT_CONSUMER, GIT_PUSHED, GIT_STREAM, PULL_EVENTS, PULLS_CONSUMER } from './git-consumer';
import {
  ACCOUNTS_CONSUMER,
  ACCOUNTS_STREAM,
  ConsumedSubject,
  ISSUES_STREAM,
  ISSUES_SUBJECTS,
  ORGS_CONSUMER,
  REPOS_CONSUMER,
  REPOS_STREAM,
} from './subjects';

/** issues on the bus (see @cairn/bus usage.ts): its own stream; repositories, owners and pushes from the others. */
export const BUS_USAGE: BusUsage = {
  service: 'issues',
  owns: [{ name: ISSUES_STREAM, subjects: ISSUES_SUBJECTS }],
  consumers: [
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: ConsumedSubject.repoDeleted },
    { stream: REPOS_STREAM, durable: AUTO_MERGE_CONSUMER, filterSubject: ConsumedSubject.commitStatusCreated },
    { stream: ACCOUNTS_STREAM, durable: ACCOUNTS_CONSUMER, filterSubject: ConsumedSubject.userDeleted },
    { stream: ACCOUNTS_STREAM, durable: ORGS_CONSUMER, filterSubject: ConsumedSubject.orgDeleted },
    { stream: GIT_STREAM, durable: GIT_CONSUMER, filterSubject: GIT_PUSHED },
    { stream: GIT_STREAM, durable: COMMIT_REFS_CONSUMER, filterSubject: GIT_PUSHED },
    { stream: ISSUES_STREAM, durable: PULLS_CONSUMER, filterSubject: PULL_EVENTS },
    { stream: ISSUES_STREAM, durable: AUTO_MERGE_REVIEWS_CONSUMER, filterSubject: REVIEW_EVENTS },
  ],
  broadcasts: [],
};
