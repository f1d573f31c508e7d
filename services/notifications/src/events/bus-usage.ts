import type { BusUsage } from '@cairn/bus';
import { ACTIVITY_CONSUMER, GIT_STREAM, GitSubject } from './git-stream';
import { ACCOUNTS_CONSUMER, ACCOUNTS_STREAM, AccountsSubject, ISSUES_CONSUMER, ISSUES_FILTER, ISSUES_STREAM } from './issues-stream';
import { REPOS_CONSUMER, REPOS_STREAM, ReposSubject, TRANSFERS_CONSUMER } from './repos-stream';

/**
 * notifications on the bus (see @cairn/bus usage.ts): publishes nothing; consumes pushes, repository deletions,
 * issues' events (threads and mail), user deletions and pending transfers (threads and mail).
 */
export const BUS_USAGE: BusUsage = {
  service: 'notifications',
  consumers: [
    { stream: GIT_STREAM, durable: ACTIVITY_CONSUMER, filterSubject: GitSubject.pushed },
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: ReposSubject.repoDeleted },
    { stream: ISSUES_STREAM, durable: ISSUES_CONSUMER, filterSubject: ISSUES_FILTER },
    { stream: ACCOUNTS_STREAM, durable: ACCOUNTS_CONSUMER, filterSubject: AccountsSubject.userDeleted },
    { stream: REPOS_STREAM, durable: TRANSFERS_CONSUMER, filterSubject: ReposSubject.repoTransferRequested },
  ],
  broadcasts: [],
};
