import { Client } from 'pg';
import { createTestDatabase, testDatabaseUrl } from './database';

async function databaseExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const result = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return result.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('testDatabaseUrl', () => {
  const saved = process.env.CAIRN_TEST_DATABASE_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.CAIRN_TEST_DATABASE_URL;
    else process.env.CAIRN_TEST_DATABASE_URL = saved;
  });

  it('defaults to the local server and honours CAIRN_TEST_DATABASE_URL', () => {
    delete process.env.CAIRN_TEST_DATABASE_URL;
    expect(testDatabaseUrl()).toBe('postgres://postgres@127.0.0.1:5432/postgres');
    process.env.CAIRN_TEST_DATABASE_URL = 'postgres://other@db.test:6543/x';
    expect(testDatabaseUrl()).toBe('postgres://other@db.test:6543/x');
  });
});

describe('createTestDatabase', () => {
  it('creates a fresh, usable database and drops it even with a connection still open', async () => {
    const db = await createTestDatabase('Testing Lib');
    expect(db.name).toMatch(/^cairn_test_testing_lib_[0-9a-f]{12}$/);
    expect(new URL(db.url).pathname).toBe(`/${db.name}`);

    const client = new Client({ connectionString: db.url });
    client.on('error', () => undefined); // the forced drop terminates this session
    await client.connect();
    const current = await client.query<{ name: string }>('SELECT current_database() AS name');
    expect(current.rows[0].name).toBe(db.name);
    expect(await databaseExists(db.name)).toBe(true);

    await db.drop();
    await db.drop();
    expect(await databaseExists(db.name)).toBe(false);
    await client.end().catch(() => undefined);
  });

  it('gives each call its own database', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.name).not.toBe(b.name);
      expect(a.name).toMatch(/^cairn_test_db_/);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });
});
