/**
 * What every repos handler needs: the database, the configuration, the clients of the services repos calls and the
 * attachments' object store.
 */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { AsyncClientOf } from '@cairn/rpc';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { AnalysisServiceService, RefServiceService, RepositoryServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { ObjectStore } from '@cairn/storage';

export type TeamsClient = AsyncClientOf<typeof TeamServiceService>;
export type OrgsClient = AsyncClientOf<typeof OrgServiceService>;
export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type GitRepositoriesClient = AsyncClientOf<typeof RepositoryServiceService>;
export type GitRefsClient = AsyncClientOf<typeof RefServiceService>;
export type GitAnalysisClient = AsyncClientOf<typeof AnalysisServiceService>;

export interface ReposContext {
  db: Database;
  logger: Logger;
  config: CairnConfig;
  /** accounts: memberships and teams (ListUserTeams), organization permissions, users and names. */
  accounts: { teams: TeamsClient; orgs: OrgsClient; users: UsersClient };
  /** git-storage: repositories on disk (create, fork, delete, info, HEAD), their branches, their licences. */
  git: { repositories: GitRepositoriesClient; refs: GitRefsClient; analysis: GitAnalysisClient };
  /**
   * Attachments' bytes (`[attachment]` storage): repos removes them after their rows' deletion committed, and writes
   * only migrated release assets (the gateway writes uploads).
   */
  objects: ObjectStore;
}
