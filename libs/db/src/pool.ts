/**
 * openDatabase: one slonik pool per service schema, with Cairn's settings, the schema created and the
 * service's migrations applied before the pool is handed out.
 */
import type { Logger } from '@cairn/log';
import { createPool, type DatabasePool } from 'slonik';
import { withSearchPath } from './connectionUri';
import { createResultParserInterceptor } from './interceptors';
import { runMigrations } from './migrations';
import { assertSchemaName, ensureSchema } from './schema';
import { createCairnTypeParsers } from './typeParsers';

export interface OpenDatabaseOptions {
  /** PostgreSQL connection URI of the server and database (no search_path needed). */
  url: string;
  /** The service's schema; every pooled connection has it as its only search_path entry. */
  schema: string;
  logger: Logger;
  /** Pool size; default 10. */
  maxConnections?: number;
  /** Directory of `NNNN_name.sql` migrations to apply before returning. */
  migrationsDir?: string;
}

export interface Database {
  pool: DatabasePool;
  schema: string;
  /** The URL as given (without the search_path option added for the pool). */
  url: string;
  /** Ends the pool; safe to call more than once. */
  close(): Promise<void>;
}

const DEFAULT_MAX_CONNECTIONS = 10;

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { url, schema, logger } = options;
  assertSchemaName(schema);
  const maximumPoolSize = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(maximumPoolSize) || maximumPoolSize < 1) {
    throw new Error(`maxConnections must be a positive integer, got ${maximumPoolSize}`);
  }
  const pool = await createPool(withSearchPath(url, schema), {
    maximumPoolSize,
    // slonik's default runs DISCARD ALL after every pooled query (STACK.md); nothing here sets
    // session state (search_path is a connection option, transactions use SET LOCAL).
    resetConnection: async () => {},
    connectionTimeout: 5_000,
    statementTimeout: 30_000,
    idleInTransactionSessionTimeout: 60_000,
    // Keep idle connections long enough that a steady trickle of requests does not reconnect each time.
    idleTimeout: 30_000,
    interceptors: [createResultParserInterceptor()],
    typeParsers: createCairnTypeParsers(),
  });
  // slonik re-emits every failed query on the pool; the caller gets the error anyway.
  pool.on('error', (error) => logger.debug({ err: error, schema }, 'database query failed'));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= pool.end());
  try {
    await ensureSchema(pool, schema);
    if (options.migrationsDir !== undefined) {
      await runMigrations(pool, schema, options.migrationsDir, logger);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { pool, schema, url, close };
}
