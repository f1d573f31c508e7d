import { Client, escapeIdentifier } from 'pg';
import { uniqueName } from './names';

/** The PostgreSQL server tests use (any database on it; fresh databases are created beside it). */
export function testDatabaseUrl(): string {
  return process.env.CAIRN_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface TestDatabase {
  /** Connection URI of the new database. */
  url: string;
  name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates an empty database `cairn_test_<prefix>_<random>` on the test server. */
export async function createTestDatabase(prefix = 'db'): Promise<TestDatabase> {
  const serverUrl = testDatabaseUrl();
  const name = uniqueName(`cairn_test_${prefix}`);
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE ${escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    name,
    // WITH (FORCE) (PostgreSQL 13+) terminates connections a test left open, e.g. after a failure.
    drop: () =>
      (dropped ??= withAdminClient(serverUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`),
      ).then(() => undefined)),
  };
}

async function withAdminClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
