/**
 * Per-service PostgreSQL roles (roles.ts) on the test server: each service's pool, opened as its own role, runs its
 * migrations in its own schema and can read nothing of another service's, nor create anything elsewhere.
 * Roles are cluster-wide, so their names are unique per run and they are dropped afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, testDatabaseUrl, type TestDatabase, uniqueName } from '@cairn/testing';
import { Client, escapeIdentifier } from 'pg';
import { sql } from 'slonik';
import { type Database, openDatabase } from './pool';
import { provisionServiceRoles, type ServiceRole } from './roles';

const logger = silentLogger();
const run = uniqueName('r');
const alpha: ServiceRole = { role: `cairn_alpha_${run}`, password: 'alpha-password', schema: 'alpha' };
const beta: ServiceRole = { role: `cairn_beta_${run}`, password: 'beta-password', schema: 'beta' };

let database: TestDatabase;
let migrations: string;
const opened: Database[] = [];

/** The test database's URL, logged in as `role`. */
function urlAs({ role, password }: ServiceRole): string {
  const url = new URL(database.url);
  url.username = role;
  url.password = password;
  return url.toString();
}

async function openAs(service: ServiceRole): Promise<Database> {
  const db = await openDatabase({ url: urlAs(service), schema: service.schema, logger, migrationsDir: migrations });
  opened.push(db);
  return db;
}

async function superuser<T>(fn: (client: Client) => Promise<T>, url = database.url): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  database = await createTestDatabase('roles');
  migrations = mkdtempSync(path.join(tmpdir(), 'cairn-roles-'));
  writeFileSync(path.join(migrations, '0001_secrets.sql'), "CREATE TABLE secrets (id bigserial PRIMARY KEY, value text NOT NULL);\nINSERT INTO secrets (value) VALUES ('mine');\n");
  await provisionServiceRoles(database.url, [alpha, beta]);
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await database?.drop();
  // Roles outlive databases: drop them once nothing of theirs is left.
  await superuser(async (client) => {
    for (const { role } of [alpha, beta]) await client.query(`DROP ROLE IF EXISTS ${escapeIdentifier(role)}`);
  }, testDatabaseUrl());
  rmSync(migrations, { recursive: true, force: true });
});

it('lets each service migrate and use its own schema', async () => {
  const a = await openAs(alpha);
  const b = await openAs(beta);
  expect(await a.pool.oneFirst(sql.unsafe`SELECT value FROM secrets`)).toBe('mine');
  await b.pool.query(sql.unsafe`INSERT INTO secrets (value) VALUES ('beta')`);
  expect(await b.pool.anyFirst(sql.unsafe`SELECT value FROM secrets ORDER BY id`)).toEqual(['mine', 'beta']);
  const owners = await superuser((client) =>
    client.query<{ schema: string; owner: string }>(
      "SELECT nspname AS schema, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname IN ('alpha', 'beta') ORDER BY 1",
    ),
  );
  expect(owners.rows).toEqual([
    { schema: 'alpha', owner: alpha.role },
    { schema: 'beta', owner: beta.role },
  ]);
});

it('refuses a service role another service\'s schema, the public schema and new schemas', async () => {
  const a = await openAs(alpha);
  await expect(a.pool.query(sql.unsafe`SELECT value FROM beta.secrets`)).rejects.toThrow(/permission denied for schema beta/);
  await expect(a.pool.query(sql.unsafe`DELETE FROM beta.secrets`)).rejects.toThrow(/permission denied for schema beta/);
  await expect(a.pool.query(sql.unsafe`CREATE TABLE public.stash (id int)`)).rejects.toThrow(/permission denied for schema public/);
  await expect(a.pool.query(sql.unsafe`CREATE SCHEMA gamma`)).rejects.toThrow(/permission denied for database/);
  // Opening another service's schema fails too (its migrations cannot even look at it).
  await expect(openDatabase({ url: urlAs(alpha), schema: beta.schema, logger, migrationsDir: migrations })).rejects.toThrow(/permission denied/);
});

it('keeps roles without a grant out of the database, and a second run only changes passwords', async () => {
  const outsider = `cairn_outsider_${run}`;
  await superuser((client) => client.query(`CREATE ROLE ${escapeIdentifier(outsider)} LOGIN PASSWORD 'x'`), testDatabaseUrl());
  try {
    await expect(superuser(async () => undefined, urlAs({ role: outsider, password: 'x', schema: 'alpha' }))).rejects.toThrow(
      /permission denied for database/,
    );
  } finally {
    await superuser((client) => client.query(`DROP ROLE ${escapeIdentifier(outsider)}`), testDatabaseUrl());
  }
  const changed = { ...alpha, password: 'new-alpha-password' };
  await provisionServiceRoles(database.url, [changed, beta]);
  const a = await openAs(changed);
  expect(await a.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM secrets`)).toBe(1);
});
