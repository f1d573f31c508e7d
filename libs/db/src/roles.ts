/**
 * One PostgreSQL role per service, able to use only its own schema: the set-up a database owner runs once
 * (scripts/postgres-roles.js) before the services start with `[database] URL` naming their own role. Each role logs
 * in to this database only, owns its schema (so the service's migrations, run as that role, create tables it owns),
 * and gets nothing on `public` or on other services' schemas; PUBLIC loses its default rights on both. The embedded
 * PostgreSQL (`npm start`) keeps one superuser and needs none of this.
 */
import { Client, escapeIdentifier, escapeLiteral } from 'pg';
import { assertSchemaName } from './schema';

export interface ServiceRole {
  /** Login role name, e.g. `cairn_social`. */
  role: string;
  password: string;
  /** The service's schema (its DATABASE_SCHEMA), owned by `role`. */
  schema: string;
}

/** The role name for a service's schema: `cairn_<schema>`. */
export function serviceRoleName(schema: string): string {
  assertSchemaName(schema);
  return `cairn_${schema}`;
}

/**
 * The statements that set up `roles` in `database`, in order; idempotent (a second run changes passwords only).
 * An existing schema is handed to its role, with the tables, sequences, views and functions in it, so an
 * installation that ran under one shared role moves over by running this.
 */
export function serviceRoleStatements(database: string, roles: readonly ServiceRole[]): string[] {
  const db = escapeIdentifier(database);
  const statements = [
    // PostgreSQL ≤ 14 lets every role create objects in public; nothing of Cairn's lives there.
    'REVOKE ALL ON SCHEMA public FROM PUBLIC',
    // CONNECT and TEMPORARY are PUBLIC's by default: only the services' roles (and owners) may connect.
    `REVOKE ALL ON DATABASE ${db} FROM PUBLIC`,
  ];
  for (const { role, password, schema } of roles) {
    assertSchemaName(schema);
    assertSchemaName(role);
    if (password === '') throw new Error(`no password for role ${role}`);
    const r = escapeIdentifier(role);
    const s = escapeIdentifier(schema);
    statements.push(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${escapeLiteral(role)}) THEN
           CREATE ROLE ${r} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
         END IF;
       END $$`,
      `ALTER ROLE ${r} WITH LOGIN PASSWORD ${escapeLiteral(password)}`,
      `GRANT CONNECT ON DATABASE ${db} TO ${r}`,
      `CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${r}`,
      `ALTER SCHEMA ${s} OWNER TO ${r}`,
      `REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`,
      // What an earlier shared role created in the schema becomes the service's.
      `DO $$ DECLARE object record; BEGIN
         FOR object IN
           SELECT format('ALTER TABLE %I.%I OWNER TO %I', n.nspname, c.relname, ${escapeLiteral(role)}) AS statement
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = ${escapeLiteral(schema)} AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
           UNION ALL
           SELECT format('ALTER SEQUENCE %I.%I OWNER TO %I', n.nspname, c.relname, ${escapeLiteral(role)})
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = ${escapeLiteral(schema)} AND c.relkind = 'S'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))
           UNION ALL
           SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, ${escapeLiteral(role)})
             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = ${escapeLiteral(schema)}
         LOOP
           EXECUTE object.statement;
         END LOOP;
       END $$`,
    );
  }
  return statements;
}

/** Runs serviceRoleStatements in one transaction as `adminUrl`'s user (a superuser or the database's owner with CREATEROLE). */
export async function provisionServiceRoles(adminUrl: string, roles: readonly ServiceRole[]): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ database: string }>('SELECT current_database() AS database');
    await client.query('BEGIN');
    for (const statement of serviceRoleStatements(rows[0].database, roles)) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
