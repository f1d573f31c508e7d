import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { SchemaValidationError, sql, z } from './index';
import { openDatabase, type Database } from './pool';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase('db_pool');
  db = await openDatabase({ url: testDb.url, schema: 'pool_test', logger: silentLogger(), maxConnections: 4 });
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe('openDatabase', () => {
  it('creates the schema', async () => {
    const exists = await db.pool.exists(
      sql.type(z.object({ exists: z.boolean() }))`SELECT 1 FROM pg_namespace WHERE nspname = ${'pool_test'}`,
    );
    expect(exists).toBe(true);
  });

  it('puts unqualified tables in the schema on every pooled connection', async () => {
    await db.pool.query(sql.unsafe`CREATE TABLE widgets (id int8 PRIMARY KEY)`);
    const tableSchema = await db.pool.oneFirst(
      sql.type(z.object({ table_schema: z.string() }))`
        SELECT table_schema FROM information_schema.tables WHERE table_name = 'widgets'`,
    );
    expect(tableSchema).toBe('pool_test');

    // Hold four connections at once so the check covers more than one session.
    const schemas = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.pool.connect(async (connection) => {
          const row = await connection.one(
            sql.type(z.object({ schema: z.string(), search_path: z.string(), pid: z.number() }))`
              SELECT current_schema() AS schema, current_setting('search_path') AS search_path,
                     pg_backend_pid() AS pid, pg_sleep(0.05)::text AS slept`,
          );
          await connection.query(sql.unsafe`SELECT 1 FROM widgets`);
          return row;
        }),
      ),
    );
    expect(new Set(schemas.map((row) => row.pid)).size).toBe(4);
    for (const row of schemas) {
      expect(row.schema).toBe('pool_test');
      expect(row.search_path).toBe('pool_test');
    }
  });

  it('does not reset sessions between queries (no DISCARD ALL)', async () => {
    const single = await openDatabase({ url: testDb.url, schema: 'pool_test', logger: silentLogger(), maxConnections: 1 });
    try {
      await single.pool.query(sql.unsafe`SELECT set_config('cairn.marker', 'kept', false)`);
      const marker = await single.pool.oneFirst(
        sql.type(z.object({ marker: z.string().nullable() }))`SELECT current_setting('cairn.marker', true) AS marker`,
      );
      expect(marker).toBe('kept');
    } finally {
      await single.close();
    }
  });

  it('returns the url as given and closes more than once', async () => {
    const other = await openDatabase({ url: testDb.url, schema: 'pool_close', logger: silentLogger() });
    expect(other.url).toBe(testDb.url);
    expect(other.schema).toBe('pool_close');
    await other.close();
    await other.close();
    expect(other.pool.state().state).toBe('ENDED');
  });

  it.each(['Accounts', 'has-dash', 'a;drop schema public', '1abc', '', 'x'.repeat(64), 'pool test'])(
    'rejects the schema name %j',
    async (schema) => {
      await expect(openDatabase({ url: testDb.url, schema, logger: silentLogger() })).rejects.toThrow(/invalid schema name/);
    },
  );

  it('rejects a non-positive pool size', async () => {
    await expect(openDatabase({ url: testDb.url, schema: 'pool_test', logger: silentLogger(), maxConnections: 0 })).rejects.toThrow(
      /maxConnections/,
    );
  });
});

describe('type parsers', () => {
  it('returns int8 and numeric as numbers and timestamps as Dates', async () => {
    const row = await db.pool.one(sql.unsafe`
      SELECT 9007199254740991::int8 AS big, 42::int8 AS id, '12.5'::numeric AS amount,
             '2024-05-01 12:00:00.123+05:30'::timestamptz AS at,
             '2024-05-01 12:00:00.5'::timestamp AS naive,
             ARRAY[1, 2]::int8[] AS ids,
             ARRAY['2024-01-01T00:00:00Z']::timestamptz[] AS ats,
             NULL::timestamptz AS missing`);
    expect(row.big).toBe(Number.MAX_SAFE_INTEGER);
    expect(row.id).toBe(42);
    expect(row.amount).toBe(12.5);
    expect(row.at).toBeInstanceOf(Date);
    expect((row.at as unknown as Date).toISOString()).toBe('2024-05-01T06:30:00.123Z');
    expect((row.naive as unknown as Date).toISOString()).toBe('2024-05-01T12:00:00.500Z');
    expect(row.ids).toEqual([1, 2]);
    expect(row.ats).toEqual([new Date('2024-01-01T00:00:00Z')]);
    expect(row.missing).toBeNull();
  });

  it('round-trips a Date parameter into timestamptz', async () => {
    const when = new Date('2023-03-04T05:06:07.089Z');
    const back = await db.pool.oneFirst(sql.type(z.object({ at: z.date() }))`SELECT ${sql.timestamp(when)} AS at`);
    expect(back.toISOString()).toBe(when.toISOString());
  });

  it('refuses an int8 that a JavaScript number cannot hold', async () => {
    await expect(db.pool.oneFirst(sql.unsafe`SELECT 9007199254740993::int8 AS big`)).rejects.toThrow(/does not fit/);
  });
});

describe('sql.type result parsing', () => {
  const Widget = z.object({ id: z.number(), name: z.string().transform((name) => name.toUpperCase()) });

  it('validates and transforms rows', async () => {
    const rows = await db.pool.many(sql.type(Widget)`SELECT 1::int8 AS id, 'bolt' AS name, 'extra' AS dropped`);
    expect(rows).toEqual([{ id: 1, name: 'BOLT' }]);
  });

  it('rejects a row that does not match the schema', async () => {
    const query = db.pool.one(sql.type(Widget)`SELECT 'not a number' AS id, 'bolt' AS name`);
    await expect(query).rejects.toBeInstanceOf(SchemaValidationError);
    await expect(db.pool.one(sql.type(Widget)`SELECT 1::int8 AS id`)).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('validates inside transactions too', async () => {
    await expect(
      db.pool.transaction(async (tx) => tx.one(sql.type(Widget)`SELECT NULL::int8 AS id, 'x' AS name`)),
    ).rejects.toBeInstanceOf(SchemaValidationError);
  });
});
