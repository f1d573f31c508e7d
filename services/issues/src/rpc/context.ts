/** What every issues handler needs: the database and the configuration. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';

export interface IssuesContext {
  db: Database;
  logger: Logger;
  config: CairnConfig;
}
