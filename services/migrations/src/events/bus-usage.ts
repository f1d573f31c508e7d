import type { BusUsage } from '@cairn/bus';
import {
  GIT_PUSHED,
  GIT_STREAM,
  MIRROR_INTERVAL_CONSUMER,
  PUSH_MIRROR_CONSUMER,
  REPO_DELETED_CONSUMER,
  REPOS_STREAM,
  RepoSubject,
} from './mirror-consumers';

/**
 * migrations on the bus (see @cairn/bus usage.ts): it publishes nothing itself — an import's and a pull mirror's
 * git data are published by git-storage (FetchRemote with `push` set: cairn.git.pushed, origin "migration" or
 * "mirror"). It consumes repos' interval changes and deletions and git-storage's pushes for its mirrors.
 */
export const BUS_USAGE: BusUsage = {
  service: 'migrations',
  consumers: [
    { stream: REPOS_STREAM, durable: MIRROR_INTERVAL_CONSUMER, filterSubject: RepoSubject.updated },
    { stream: REPOS_STREAM, durable: REPO_DELETED_CONSUMER, filterSubject: RepoSubject.deleted },
    { stream: GIT_STREAM, durable: PUSH_MIRROR_CONSUMER, filterSubject: GIT_PUSHED },
  ],
  broadcasts: [],
};
