/** What every notifications handler needs. */
import type { Database } from '@cairn/db';
import type { RepoAccess } from '../repos/repo-access';

export interface NotificationsContext {
  db: Database;
  /** The repos service: which repositories a viewer may read. */
  repoAccess: RepoAccess;
}
