import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger, silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { sql, z } from './index';
import { MigrationError, readMigrationFiles, runMigrations } from './migrations';
import { openDatabase, type Database } from './pool';

let testDb: TestDatabase;
const opened: Database[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase('db_migrations');
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await testDb?.drop();
});

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-migrations-'));
  dirs.push(dir);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(path.join(dir, name), text)));
  return dir;
}

async function open(schema: string, migrations?: string): Promise<Database> {
  const db = await openDatabase({ url: testDb.url, schema, logger: silentLogger(), migrationsDir: migrations });
  opened.push(db);
  return db;
}

const Recorded = z.object({ version: z.number(), name: z.string(), applied_at: z.date() });

async function recorded(db: Database): Promise<readonly z.infer<typeof Recorded>[]> {
  return db.pool.any(
    sql.type(Recorded)`SELECT version, name, applied_at FROM ${sql.identifier([db.schema, 'schema_migrations'])} ORDER BY version`,
  );
}

// Each file depends on the one before it, so applying them out of order fails.
const ORDERED = {
  '0010_seed.sql': `INSERT INTO things (name, colour) VALUES ('first', 'red');`,
  '0001_things.sql': `CREATE TABLE things (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL UNIQUE);
    CREATE INDEX things_name_idx ON things (name);`,
  '0002_colour.sql': `ALTER TABLE things ADD COLUMN colour text;
    CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql AS $$ SELECT upper(t) || '!'; $$;`,
};

describe('runMigrations', () => {
  it('applies files once, in version order, into the schema, and records them', async () => {
    const dir = await migrationsDir(ORDERED);
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', destination: { write: (line: string) => lines.push(line) } });
    const db = await open('mig_order');

    expect(await runMigrations(db.pool, 'mig_order', dir, logger)).toBe(3);

    expect((await recorded(db)).map(({ version, name }) => [version, name])).toEqual([
      [1, 'things'],
      [2, 'colour'],
      [10, 'seed'],
    ]);
    expect((await recorded(db))[0].applied_at).toBeInstanceOf(Date);
    const row = await db.pool.one(
      sql.type(z.object({ name: z.string(), colour: z.string(), loud: z.string() }))`
        SELECT name, colour, shout(name) AS loud FROM mig_order.things`,
    );
    expect(row).toEqual({ name: 'first', colour: 'red', loud: 'FIRST!' });
    const migrated = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'migration applied');
    expect(migrated.map((entry) => entry.migration)).toEqual(['0001_things.sql', '0002_colour.sql', '0010_seed.sql']);

    // A re-run is a no-op (the seed would otherwise violate the unique name).
    expect(await runMigrations(db.pool, 'mig_order', dir, logger)).toBe(0);

    // A new file is applied alone.
    await writeFile(path.join(dir, '0011_more.sql'), `INSERT INTO things (name) VALUES ('second');`);
    expect(await runMigrations(db.pool, 'mig_order', dir, logger)).toBe(1);
    const count = await db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*) AS count FROM mig_order.things`);
    expect(count).toBe(2);
  });

  it('is applied by openDatabase when migrationsDir is given', async () => {
    const dir = await migrationsDir(ORDERED);
    const db = await open('mig_open', dir);
    expect(await recorded(db)).toHaveLength(3);
    const name = await db.pool.oneFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM things`);
    expect(name).toBe('first');
  });

  it('applies each file exactly once when two pools migrate at the same time', async () => {
    const dir = await migrationsDir({
      // The sleep widens the window in which an unlocked runner would start the same file twice.
      '0001_slow.sql': `CREATE TABLE runs (n int); SELECT pg_sleep(0.2); INSERT INTO runs VALUES (1);`,
      '0002_after.sql': `INSERT INTO runs VALUES (2);`,
    });
    const [first, second] = await Promise.all([open('mig_race'), open('mig_race')]);
    const counts = await Promise.all([
      runMigrations(first.pool, 'mig_race', dir, silentLogger()),
      runMigrations(second.pool, 'mig_race', dir, silentLogger()),
    ]);
    expect(counts[0] + counts[1]).toBe(2);
    const runs = await first.pool.manyFirst(sql.type(z.object({ n: z.number() }))`SELECT n FROM runs ORDER BY n`);
    expect(runs).toEqual([1, 2]);
    expect(await recorded(first)).toHaveLength(2);
  });

  it('applies each file exactly once when two processes open the database together', async () => {
    const dir = await migrationsDir({ '0001_t.sql': `CREATE TABLE t (n int); SELECT pg_sleep(0.1);` });
    const [first] = await Promise.all([open('mig_open_race', dir), open('mig_open_race', dir)]);
    expect(await recorded(first)).toHaveLength(1);
  });

  it('rolls back a failing migration, names the file and keeps the earlier ones', async () => {
    const dir = await migrationsDir({
      '0001_ok.sql': `CREATE TABLE kept (n int);`,
      '0002_broken.sql': `CREATE TABLE half (n int); INSERT INTO half VALUES (1); SELECT 1 / 0;`,
      '0003_never.sql': `CREATE TABLE never (n int);`,
    });
    const db = await open('mig_fail');
    const failure = runMigrations(db.pool, 'mig_fail', dir, silentLogger());
    await expect(failure).rejects.toBeInstanceOf(MigrationError);
    await expect(failure).rejects.toMatchObject({ file: '0002_broken.sql', message: expect.stringContaining('0002_broken.sql') });
    await expect(failure).rejects.toThrow(/division by zero/);

    expect((await recorded(db)).map((row) => row.version)).toEqual([1]);
    const tables = await db.pool.manyFirst(
      sql.type(z.object({ table_name: z.string() }))`
        SELECT table_name FROM information_schema.tables WHERE table_schema = 'mig_fail' ORDER BY table_name`,
    );
    expect(tables).toEqual(['kept', 'schema_migrations']);

    // openDatabase fails the same way.
    await expect(openDatabase({ url: testDb.url, schema: 'mig_fail', logger: silentLogger(), migrationsDir: dir })).rejects.toThrow(
      /0002_broken\.sql/,
    );
  });

  it.each(['create_users.sql', '1_short.sql', '0001-dash.sql', '0001_users.SQL.bak', 'README.md', '0000_zero.sql'])(
    'rejects the file name %s before touching the database',
    async (bad) => {
      const dir = await migrationsDir({ '0001_ok.sql': 'CREATE TABLE must_not_exist (n int);', [bad]: 'SELECT 1;' });
      const db = await open('mig_bad_name');
      await expect(runMigrations(db.pool, 'mig_bad_name', dir, silentLogger())).rejects.toThrow(new RegExp(bad.replace(/\./g, '\\.')));
      const exists = await db.pool.exists(
        sql.unsafe`SELECT 1 FROM information_schema.tables WHERE table_schema = 'mig_bad_name' AND table_name = 'must_not_exist'`,
      );
      expect(exists).toBe(false);
    },
  );

  it('rejects two files with the same version', async () => {
    const dir = await migrationsDir({ '0001_a.sql': 'SELECT 1;', '0001_b.sql': 'SELECT 2;' });
    await expect(readMigrationFiles(dir)).rejects.toThrow(/share version 1/);
  });

  it('ignores dotfiles and directories', async () => {
    const dir = await migrationsDir({ '.gitkeep': '', '0001_a.sql': 'SELECT 1;' });
    await mkdtemp(path.join(dir, 'sub-'));
    expect((await readMigrationFiles(dir)).map((file) => file.file)).toEqual(['0001_a.sql']);
  });

  it('rejects an invalid schema name', async () => {
    const dir = await migrationsDir({ '0001_a.sql': 'SELECT 1;' });
    const db = await open('mig_schema_name');
    await expect(runMigrations(db.pool, 'bad"name', dir, silentLogger())).rejects.toThrow(/invalid schema name/);
  });
});
