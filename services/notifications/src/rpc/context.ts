/** What every notifications handler needs. */
import type { Database } from '@cairn/db';
import type { RepoAccess } from '../repos/repo-access';

export interface NotificationsContext {
  db: Database;
  /** Which repositories a viewer may read (the repos service's answer, once it exists). */
  repoAccess: RepoAccess;
}
