/**
 * Forward-only SQL migrations: `NNNN_name.sql` files applied in version order, each in its own
 * transaction, recorded in `<schema>.schema_migrations`.
 *
 * They run on one dedicated pg connection rather than through slonik, because slonik sends every query
 * with the extended protocol, which refuses several statements in one query, and a migration file is
 * many statements. That connection holds a session advisory lock keyed by the schema for the whole run,
 * so processes starting together apply each file exactly once.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@cairn/log';
import { Client, escapeIdentifier } from 'pg';
import type { DatabasePool } from 'slonik';
import { SCHEMA_LOCK_CLASS, assertSchemaName } from './schema';

export interface MigrationFile {
  version: number;
  name: string;
  file: string;
  path: string;
}

/** `0001_create_users.sql` → version 1, name `create_users`. */
export const MIGRATION_FILE_PATTERN = /^(\d{4,9})_([A-Za-z0-9][A-Za-z0-9_-]*)\.sql$/;

export class MigrationError extends Error {
  readonly file: string;

  constructor(file: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'MigrationError';
    this.file = file;
  }
}

/** Lists the migrations of `dir` in version order; any other file (except dotfiles) is an error. */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: MigrationFile[] = [];
  const byVersion = new Map<number, string>();
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const match = MIGRATION_FILE_PATTERN.exec(entry.name);
    if (match === null) {
      throw new MigrationError(entry.name, `bad migration file name ${entry.name} in ${dir}: expected NNNN_name.sql`);
    }
    const version = Number(match[1]);
    if (version === 0) {
      throw new MigrationError(entry.name, `bad migration file name ${entry.name} in ${dir}: versions start at 1`);
    }
    const clash = byVersion.get(version);
    if (clash !== undefined) {
      throw new MigrationError(entry.name, `migrations ${clash} and ${entry.name} in ${dir} share version ${version}`);
    }
    byVersion.set(version, entry.name);
    files.push({ version, name: match[2], file: entry.name, path: path.join(dir, entry.name) });
  }
  return files.sort((a, b) => a.version - b.version);
}

/** Applies the migrations of `dir` not yet recorded in `<schema>.schema_migrations`; returns how many. */
export async function runMigrations(pool: DatabasePool, schema: string, dir: string, logger: Logger): Promise<number> {
  assertSchemaName(schema);
  const files = await readMigrationFiles(dir);
  const { connectionTimeout } = pool.configuration;
  const client = new Client({
    connectionString: pool.configuration.connectionUri,
    connectionTimeoutMillis: typeof connectionTimeout === 'number' ? connectionTimeout : undefined,
  });
  // An error on an idle pg client is emitted, and an unhandled 'error' event would end the process.
  client.on('error', (error) => logger.warn({ err: error, schema }, 'migration connection error'));
  await client.connect();
  try {
    const quotedSchema = escapeIdentifier(schema);
    const table = `${quotedSchema}.schema_migrations`;
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [SCHEMA_LOCK_CLASS, schema]);
    // Not CREATE SCHEMA IF NOT EXISTS: it needs CREATE on the database even when the schema exists (roles.ts).
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quotedSchema}`);
    // Session state is fine here: this connection is private and closed at the end.
    await client.query(`SET search_path TO ${quotedSchema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         version int PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const recorded = await client.query<{ version: number }>(`SELECT version FROM ${table}`);
    const applied = new Set(recorded.rows.map((row) => row.version));
    let count = 0;
    for (const migration of files) {
      if (applied.has(migration.version)) continue;
      const text = await readFile(migration.path, 'utf8');
      const started = Date.now();
      try {
        await client.query('BEGIN');
        await client.query(text);
        await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        const reason = error instanceof Error ? error.message : String(error);
        throw new MigrationError(migration.file, `migration ${migration.file} failed (schema ${schema}): ${reason}`, error);
      }
      count += 1;
      logger.info(
        { schema, version: migration.version, migration: migration.file, duration_ms: Date.now() - started },
        'migration applied',
      );
    }
    return count;
  } finally {
    // Closing the session also releases the advisory lock, even when the run failed halfway.
    await client.end().catch((error: unknown) => logger.warn({ err: error, schema }, 'closing migration connection failed'));
  }
}
