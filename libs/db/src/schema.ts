/**
 * The service schema: its name rule, and the advisory lock that serialises everything that creates or
 * changes it (schema creation here, migrations in migrations.ts) across processes.
 */
import { sql, type DatabasePool } from 'slonik';

/** A plain, unquoted PostgreSQL identifier: it can go into a connection option and SQL without escaping. */
export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME_PATTERN.test(schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(schema)}: must match ${SCHEMA_NAME_PATTERN}`);
  }
}

/**
 * First key of the two-int advisory lock (second key: hashtext(schema)), so Cairn's schema lock never
 * collides with advisory locks that services take for their own purposes with one-bigint keys.
 */
export const SCHEMA_LOCK_CLASS = 0x0ca1_4e;

/**
 * Creates the schema unless it exists. CREATE SCHEMA IF NOT EXISTS races with itself (duplicate key on
 * pg_namespace), hence the lock; and it needs CREATE on the database even when the schema exists, which a
 * service's own role (roles.ts) does not have, hence the look first.
 */
export async function ensureSchema(pool: DatabasePool, schema: string): Promise<void> {
  assertSchemaName(schema);
  await pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_CLASS}, hashtext(${schema}))`);
    if (await tx.exists(sql.unsafe`SELECT 1 FROM pg_namespace WHERE nspname = ${schema}`)) return;
    await tx.query(sql.unsafe`CREATE SCHEMA ${sql.identifier([schema])}`);
  });
}
