/** What every issues handler needs: the database, the configuration and the accounts client (mentions). */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { AsyncClientOf } from '@cairn/rpc';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;

export interface IssuesContext {
  db: Database;
  logger: Logger;
  config: CairnConfig;
  /** accounts: who an @name in a body stands for (ResolveName, as the poster sees it). */
  users: UsersClient;
}
