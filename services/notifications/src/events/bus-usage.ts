import type { BusUsage } from '@cairn/bus';
import { ACTIVITY_CONSUMER, GIT_STREAM, GitSubject } from './git-stream';
import { REPOS_CONSUMER, REPOS_STREAM, ReposSubject, TRANSFERS_CONSUMER } from './repos-stream';

/** notifications on the bus (see @cairn/bus usage.ts): publishes nothing; consumes pushes and repository deletions. */
export const BUS_USAGE: BusUsage = {
  service: 'notifications',
  consumers: [
    { stream: GIT_STREAM, durable: ACTIVITY_CONSUMER, filterSubject: GitSubject.pushed },
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: ReposSubject.repoDeleted },
    { stream: REPOS_STREAM, durable: TRANSFERS_CONSUMER, filterSubject: ReposSubject.repoTransferRequested },
  ],
  broadcasts: [],
};
