/** What every migrations handler and the task runner need. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { MergeServiceService, RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { ImportServiceService as IssueImportService } from '@cairn/proto/cairn/issues/v1/import_service';
import type { ImportServiceService as ReleaseImportService } from '@cairn/proto/cairn/repos/v1/import_service';
import type { RepoServiceService, TopicServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ImportServiceService as ReactionImportService } from '@cairn/proto/cairn/social/v1/import_service';
import type { AsyncClientOf } from '@cairn/rpc';
import type { ObjectStore } from '@cairn/storage';

/**
 * The services migrations calls: accounts (owners, authors by e-mail), repos (the repository, its topics and
 * releases), git-storage (the git data), issues (labels, milestones, issues, comments) and social (reactions).
 */
export interface MigrationsClients {
  users: AsyncClientOf<typeof UserServiceService>;
  repos: AsyncClientOf<typeof RepoServiceService>;
  remotes: AsyncClientOf<typeof RemoteServiceService>;
  /** git-storage's MergeService: imported pull requests' heads and patches (ImportPullHeads). */
  pullHeads: AsyncClientOf<typeof MergeServiceService>;
  topics: AsyncClientOf<typeof TopicServiceService>;
  releaseImports: AsyncClientOf<typeof ReleaseImportService>;
  issueImports: AsyncClientOf<typeof IssueImportService>;
  reactionImports: AsyncClientOf<typeof ReactionImportService>;
}

/** The import task runner, for handlers that queue a task (Migrate wakes it and waits for the outcome). */
export interface TaskRunner {
  wake(): void;
}

export interface MigrationsContext {
  db: Database;
  logger: Logger;
  config: Pick<CairnConfig, 'migrations' | 'mirror' | 'repository' | 'git' | 'server' | 'attachment'>;
  clients: MigrationsClients;
  /** Where restores' dumps wait for their task (`restores/…`; the attachments' store, `[attachment]` / `[storage]`). */
  objects?: ObjectStore;
  /** Unset before it starts. */
  runner?: TaskRunner;
  /** The mirror scheduler, for handlers and consumers that ask for a sync now; unset before it starts. */
  mirrors?: { wake(): void };
}
