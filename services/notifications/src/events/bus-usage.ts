import type { BusUsage } from '@cairn/bus';
import { ACTIVITY_CONSUMER, GIT_STREAM, GIT_SUBJECTS, GitSubject } from './git-stream';
import { REPOS_CONSUMER, REPOS_STREAM, REPOS_SUBJECTS, ReposSubject } from './repos-stream';

/** notifications on the bus (see @cairn/bus usage.ts): publishes nothing; consumes pushes and repository deletions. */
export const BUS_USAGE: BusUsage = {
  service: 'notifications',
  binds: [
    { name: GIT_STREAM, subjects: GIT_SUBJECTS },
    { name: REPOS_STREAM, subjects: REPOS_SUBJECTS },
  ],
  consumers: [
    { stream: GIT_STREAM, durable: ACTIVITY_CONSUMER, filterSubject: GitSubject.pushed },
    { stream: REPOS_STREAM, durable: REPOS_CONSUMER, filterSubject: ReposSubject.repoDeleted },
  ],
  broadcasts: [],
};
