/** What every hooks handler, consumer and the deliverer need. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { CommitServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncClientOf } from '@cairn/rpc';
import type { Deliverer } from '../delivery/deliverer';

/** The services payloads are built from (users, repositories, commits). */
export interface HooksClients {
  users: AsyncClientOf<typeof UserServiceService>;
  repos: AsyncClientOf<typeof RepoServiceService>;
  commits: AsyncClientOf<typeof CommitServiceService>;
  refs: AsyncClientOf<typeof RefServiceService>;
}

export interface HooksContext {
  db: Database;
  logger: Logger;
  config: Pick<CairnConfig, 'server' | 'service' | 'webhook' | 'security'>;
  clients: HooksClients;
  /** Set once the deliverer runs: handlers that commit tasks (redelivery) wake it. */
  deliverer?: Deliverer;
}
