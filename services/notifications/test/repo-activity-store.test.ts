/**
 * A repository's activity and its deletion (store/activity-buckets.ts): forgetting a repository removes every
 * user's buckets in it and no later addition brings them back, whichever of an addition and a deletion running
 * at the same time commits first.
 */
import { type Database, type DatabaseTransactionConnection, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { MIGRATIONS_DIR } from '../src/index';
import { addContributions, forgetRepoActivity } from '../src/store/activity-buckets';

const logger = silentLogger();
const BUCKET = 1_748_779_200; // 2025-06-01T12:00:00Z
let database: TestDatabase;
let db: Database;
let nextRepo = 1;

beforeAll(async () => {
  database = await createTestDatabase('notif_repo_activity');
  db = await openDatabase({ url: database.url, schema: 'notifications', logger, migrationsDir: MIGRATIONS_DIR });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const bucketRow = z.object({ user_id: z.number(), repo_id: z.number(), contributions: z.number() });

function activityIn(repoIds: readonly number[]): Promise<ReadonlyArray<z.infer<typeof bucketRow>>> {
  return db.pool.any(sql.type(bucketRow)`
    SELECT user_id, repo_id, contributions FROM activity_buckets
    WHERE repo_id = ANY(${sql.array(repoIds, 'int8')}) ORDER BY repo_id, user_id`);
}

function add(userId: number, repoId: number): Promise<void> {
  return db.pool.transaction((tx) => addContributions(tx, { userId, repoId, bucket: BUCKET, count: 1 }));
}

function forget(repoId: number): Promise<void> {
  return db.pool.transaction((tx) => forgetRepoActivity(tx, repoId));
}

/** Whether a session of this database waits for an advisory lock another holds. */
async function someoneWaitsForALock(): Promise<boolean> {
  return db.pool.oneFirst(sql.type(z.object({ waiting: z.boolean() }))`
    SELECT EXISTS (
      SELECT FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    ) AS waiting`);
}

/**
 * Runs `second` while a transaction that ran `first` is still open, and commits that transaction once `second`
 * either finished or waits for it; then waits for `second`. (`second` runs outside the transaction's callback:
 * slonik refuses other connections' queries there.)
 */
async function overlapping(first: (tx: DatabaseTransactionConnection) => Promise<void>, second: () => Promise<void>): Promise<void> {
  let applied!: () => void;
  const firstApplied = new Promise<void>((resolve) => (applied = resolve));
  let commit!: () => void;
  const committing = new Promise<void>((resolve) => (commit = resolve));
  const transaction = db.pool.transaction(async (tx) => {
    await first(tx);
    applied();
    await committing;
  });
  await Promise.race([firstApplied, transaction]);
  let settled = false;
  const running = second().finally(() => {
    settled = true;
  });
  running.catch(() => {});
  try {
    await eventually(async () => expect(settled || (await someoneWaitsForALock())).toBe(true));
  } finally {
    commit();
  }
  await transaction;
  await running;
}

it('forgets every user’s activity in the repository, keeps other repositories’, and adds none to it afterwards', async () => {
  const gone = nextRepo++;
  const kept = nextRepo++;
  await add(1, gone);
  await add(2, gone);
  await add(1, kept);
  await forget(gone);
  await forget(gone);
  await add(3, gone);
  await add(1, gone);
  expect(await activityIn([gone, kept])).toEqual([{ user_id: 1, repo_id: kept, contributions: 1 }]);
});

it('adds nothing when the addition overlaps a deletion that commits first', async () => {
  const gone = nextRepo++;
  await add(1, gone);
  await overlapping((tx) => forgetRepoActivity(tx, gone), () => add(2, gone));
  expect(await activityIn([gone])).toEqual([]);
});

it('forgets an addition that overlaps the deletion and commits first', async () => {
  const gone = nextRepo++;
  await overlapping((tx) => addContributions(tx, { userId: 1, repoId: gone, bucket: BUCKET, count: 1 }), () => forget(gone));
  expect(await activityIn([gone])).toEqual([]);
});
