import { createServer } from 'node:net';
import { silentLogger } from '@cairn/log';
import { CairnError, Code } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { ConnectionError, InvalidInputError, NotFoundError } from 'slonik';
import { toCairnError } from './errors';
import { sql, z } from './index';
import { openDatabase, type Database } from './pool';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase('db_errors');
  db = await openDatabase({ url: testDb.url, schema: 'errors_test', logger: silentLogger() });
  await db.pool.query(sql.unsafe`
    CREATE TABLE owners (id int8 PRIMARY KEY, name text NOT NULL CONSTRAINT owners_name_key UNIQUE,
                         age int CONSTRAINT owners_age_check CHECK (age >= 0))`);
  await db.pool.query(sql.unsafe`
    CREATE TABLE pets (id int8 PRIMARY KEY, owner_id int8 NOT NULL CONSTRAINT pets_owner_fk REFERENCES owners (id))`);
  await db.pool.query(sql.unsafe`INSERT INTO owners (id, name) VALUES (1, 'ada')`);
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

async function caught(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    return toCairnError(error);
  }
  throw new Error('expected the promise to reject');
}

describe('toCairnError with real database errors', () => {
  it('maps a unique violation to ALREADY_EXISTS with the constraint as reason', async () => {
    const error = await caught(db.pool.query(sql.unsafe`INSERT INTO owners (id, name) VALUES (2, 'ada')`));
    expect(error).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'owners_name_key', message: 'already exists' });
    expect(error.cause).toBeDefined();
  });

  it('maps a foreign key violation to FAILED_PRECONDITION', async () => {
    const error = await caught(db.pool.query(sql.unsafe`INSERT INTO pets (id, owner_id) VALUES (1, 999)`));
    expect(error).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'pets_owner_fk' });
  });

  it('maps a check violation to INVALID_ARGUMENT', async () => {
    const error = await caught(db.pool.query(sql.unsafe`INSERT INTO owners (id, name, age) VALUES (3, 'bob', -1)`));
    expect(error).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'owners_age_check' });
  });

  it('maps a not-null violation to INVALID_ARGUMENT', async () => {
    const error = await caught(db.pool.query(sql.unsafe`INSERT INTO owners (id, name) VALUES (4, NULL)`));
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
  });

  it('maps invalid text representation and numeric out of range to INVALID_ARGUMENT', async () => {
    const syntax = await caught(db.pool.query(sql.unsafe`SELECT ${'abc'}::int8`));
    expect(syntax.code).toBe(Code.INVALID_ARGUMENT);
    const range = await caught(db.pool.query(sql.unsafe`SELECT ${70000}::int2`));
    expect(range.code).toBe(Code.INVALID_ARGUMENT);
    const badDate = await caught(db.pool.query(sql.unsafe`SELECT ${'2024-13-45'}::date`));
    expect(badDate.code).toBe(Code.INVALID_ARGUMENT);
  });

  it('maps one() without a row to NOT_FOUND', async () => {
    const error = await caught(db.pool.one(sql.type(z.object({ id: z.number() }))`SELECT id FROM owners WHERE id = ${404}`));
    expect(error).toMatchObject({ code: Code.NOT_FOUND, message: 'not found' });
    expect(error.cause).toBeInstanceOf(NotFoundError);
  });

  it('maps a statement timeout to UNAVAILABLE', async () => {
    const error = await caught(
      db.pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`SET LOCAL statement_timeout = 20`);
        await tx.query(sql.unsafe`SELECT pg_sleep(5)`);
      }),
    );
    expect(error.code).toBe(Code.UNAVAILABLE);
  });

  it('maps a refused connection to UNAVAILABLE', async () => {
    const port = await closedPort();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const error = await caught(openDatabase({ url, schema: 'errors_test', logger: silentLogger() }));
    expect(error).toMatchObject({ code: Code.UNAVAILABLE, message: 'database unavailable' });
  });

  it('maps a query on a closed pool to UNAVAILABLE', async () => {
    const closed = await openDatabase({ url: testDb.url, schema: 'errors_test', logger: silentLogger() });
    await closed.close();
    const error = await caught(closed.pool.query(sql.unsafe`SELECT 1`));
    expect(error.code).toBe(Code.UNAVAILABLE);
  });

  it('maps slonik misuse and schema mismatches to INTERNAL', async () => {
    const multi = await caught(db.pool.query(sql.unsafe`SELECT 1; SELECT 2`));
    expect(multi).toMatchObject({ code: Code.INTERNAL, message: 'internal error', reason: undefined });
    const mismatch = await caught(db.pool.one(sql.type(z.object({ id: z.string() }))`SELECT 1::int8 AS id`));
    expect(mismatch.code).toBe(Code.INTERNAL);
  });
});

describe('toCairnError without a database', () => {
  it('passes a CairnError through unchanged', () => {
    const original = CairnError.denied('no');
    expect(toCairnError(original)).toBe(original);
  });

  it('maps serialization failures and deadlocks to ABORTED', () => {
    for (const code of ['40001', '40P01']) {
      expect(toCairnError(Object.assign(new Error('conflict'), { code })).code).toBe(Code.ABORTED);
    }
  });

  it('maps connection-level errors to UNAVAILABLE', () => {
    expect(toCairnError(new ConnectionError('gone')).code).toBe(Code.UNAVAILABLE);
    expect(toCairnError(Object.assign(new Error('too many'), { code: '53300' })).code).toBe(Code.UNAVAILABLE);
    expect(toCairnError(Object.assign(new Error('shutdown'), { code: '57P01' })).code).toBe(Code.UNAVAILABLE);
    expect(toCairnError(new Error('Connection terminated due to connection timeout')).code).toBe(Code.UNAVAILABLE);
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:1'), { code: 'ECONNREFUSED' });
    expect(toCairnError(new AggregateError([refused], '')).code).toBe(Code.UNAVAILABLE);
  });

  it('reads the code and constraint from a raw pg error', () => {
    const raw = Object.assign(new Error('duplicate key value'), { code: '23505', constraint: 'users_name_key' });
    expect(toCairnError(raw)).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'users_name_key' });
  });

  it('maps slonik invalid input from the server to INVALID_ARGUMENT', () => {
    expect(toCairnError(new InvalidInputError('invalid input syntax for type uuid: "x"')).code).toBe(Code.INVALID_ARGUMENT);
  });

  it('maps anything else to INTERNAL with the original as cause', () => {
    const original = new TypeError('boom');
    const mapped = toCairnError(original);
    expect(mapped).toMatchObject({ code: Code.INTERNAL, message: 'internal error' });
    expect(mapped.cause).toBe(original);
    expect(toCairnError('a string').code).toBe(Code.INTERNAL);
    expect(toCairnError(undefined).code).toBe(Code.INTERNAL);
  });
});

/** A port nothing listens on: bind an ephemeral port, then release it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
