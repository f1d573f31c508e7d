/** What every migrations handler and the task runner need. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncClientOf } from '@cairn/rpc';

/** The services migrations calls: accounts (owners), repos (the repository), git-storage (the git data). */
export interface MigrationsClients {
  users: AsyncClientOf<typeof UserServiceService>;
  repos: AsyncClientOf<typeof RepoServiceService>;
  remotes: AsyncClientOf<typeof RemoteServiceService>;
}

/** The import task runner, for handlers that queue a task (Migrate wakes it and waits for the outcome). */
export interface TaskRunner {
  wake(): void;
}

export interface MigrationsContext {
  db: Database;
  logger: Logger;
  config: Pick<CairnConfig, 'migrations' | 'mirror' | 'repository' | 'git' | 'server'>;
  clients: MigrationsClients;
  /** Unset before it starts. */
  runner?: TaskRunner;
  /** The mirror scheduler, for handlers and consumers that ask for a sync now; unset before it starts. */
  mirrors?: { wake(): void };
}
