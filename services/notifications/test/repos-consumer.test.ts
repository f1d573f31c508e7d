/**
 * The notifications-repos consumer on both buses: a deleted repository's activity is forgotten from every
 * user's heatmap and stays forgotten (a push event of it that arrives after the deletion adds nothing); the
 * deletion is applied once its transaction commits (a failed attempt comes back), and unreadable events do not
 * block the ones behind them.
 */
import { type Bus, type Subscription, prepareOutbox } from '@cairn/bus';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, eventually, uniqueName, type TestDatabase } from '@cairn/testing';
import { MIGRATIONS_DIR, repoDeletedHandler, startActivityConsumer, startReposConsumer } from '../src/index';
import { addContributions } from '../src/store/activity-buckets';
import { busAdapters } from './buses';
import { gitPushed, publishPush, publishRepoDeleted, repoDeleted } from './harness';

const logger = silentLogger();
const DURABLE = 'repos';
const BUCKET = 1_748_779_200; // 2025-06-01T12:00:00Z

describe.each(busAdapters(logger))('notifications-repos on the %s bus', (_adapter, connectBus, cleanUp) => {
  const prefix = uniqueName('notif_repos');
  let database: TestDatabase;
  let db: Database;
  let bus: Bus;
  let streams = 0;
  let nextRepo = 100;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('notif_repos');
    db = await openDatabase({ url: database.url, schema: 'notifications', logger, migrationsDir: MIGRATIONS_DIR });
    await prepareOutbox(db);
    bus = await connectBus(database.url);
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
  });

  afterAll(async () => {
    await bus?.close();
    await db?.close();
    await cleanUp(prefix.toUpperCase());
    await database?.drop();
  });

  /** A stream of this test's own (unique subjects, so it never overlaps CAIRN_REPOS) and its subjects. */
  async function freshStream(): Promise<{ stream: string; deleted: string; pushed: string }> {
    streams += 1;
    const stream = `${prefix.toUpperCase()}_${streams}`;
    const root = `${prefix}${streams}`;
    await bus.ensureStream(stream, [`${root}.>`]);
    return { stream, deleted: `${root}.repo.deleted`, pushed: `${root}.git.pushed` };
  }

  const bucketRow = z.object({ user_id: z.number(), repo_id: z.number(), contributions: z.number() });

  async function activityIn(repoIds: readonly number[]): Promise<ReadonlyArray<z.infer<typeof bucketRow>>> {
    return db.pool.any(sql.type(bucketRow)`
      SELECT user_id, repo_id, contributions FROM activity_buckets
      WHERE repo_id = ANY(${sql.array(repoIds, 'int8')}) ORDER BY repo_id, user_id`);
  }

  /** A repository with one contribution of each user in it. */
  async function repoWithActivity(...userIds: number[]): Promise<number> {
    const repoId = nextRepo++;
    await db.pool.transaction(async (tx) => {
      for (const userId of userIds) await addContributions(tx, { userId, repoId, bucket: BUCKET, count: 1 });
    });
    return repoId;
  }

  /** Deletes a repository of its own behind everything else and waits until its activity is gone. */
  async function drain(subject: string): Promise<void> {
    const sentinel = await repoWithActivity(1);
    await publishRepoDeleted(bus, subject, repoDeleted(sentinel));
    await eventually(async () => expect(await activityIn([sentinel])).toEqual([]));
  }

  it('forgets every user’s activity in the deleted repository and keeps the other repositories’', async () => {
    const { stream, deleted } = await freshStream();
    subscriptions.push(await startReposConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: deleted }));
    const gone = await repoWithActivity(1, 2, 3);
    const kept = await repoWithActivity(1, 2);
    await publishRepoDeleted(bus, deleted, repoDeleted(gone));
    await eventually(async () => expect(await activityIn([gone])).toEqual([]));
    expect(await activityIn([kept])).toEqual([
      { user_id: 1, repo_id: kept, contributions: 1 },
      { user_id: 2, repo_id: kept, contributions: 1 },
    ]);
  });

  it('adds nothing for a push to the repository that arrives after its deletion', async () => {
    const { stream, deleted, pushed } = await freshStream();
    subscriptions.push(await startReposConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: deleted }));
    const gone = await repoWithActivity(1);
    await publishRepoDeleted(bus, deleted, repoDeleted(gone));
    await eventually(async () => expect(await activityIn([gone])).toEqual([]));

    subscriptions.push(await startActivityConsumer({ db, bus, logger, stream, durable: 'activity', filterSubject: pushed }));
    const other = nextRepo++;
    await publishPush(bus, pushed, gitPushed({ pusherId: 1, repoId: gone }));
    await publishPush(bus, pushed, gitPushed({ pusherId: 1, repoId: other }));
    // The consumer takes pushes in stream order: once the second counts, the first was handled.
    await eventually(async () => expect(await activityIn([other])).toHaveLength(1));
    expect(await activityIn([gone])).toEqual([]);
  });

  it('applies a deletion whose first attempt failed on its redelivery, and records it once', async () => {
    const { stream, deleted } = await freshStream();
    const gone = await repoWithActivity(1, 2);
    // The first deletion of this repository's buckets fails inside its transaction (a sequence is not rolled back).
    await db.pool.query(sql.unsafe`CREATE TABLE fail_first_delete (repo_id bigint PRIMARY KEY)`);
    await db.pool.query(sql.unsafe`CREATE SEQUENCE fail_first_delete_attempts`);
    await db.pool.query(sql.unsafe`
      CREATE FUNCTION fail_first_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM fail_first_delete WHERE repo_id = OLD.repo_id) THEN
          IF nextval('fail_first_delete_attempts') = 1 THEN
            RAISE EXCEPTION 'injected failure';
          END IF;
        END IF;
        RETURN OLD;
      END $$`);
    await db.pool.query(sql.unsafe`
      CREATE TRIGGER fail_first_delete BEFORE DELETE ON activity_buckets FOR EACH ROW EXECUTE FUNCTION fail_first_delete()`);
    await db.pool.query(sql.unsafe`INSERT INTO fail_first_delete (repo_id) VALUES (${gone})`);
    const deliveries: number[] = [];
    const handle = repoDeletedHandler(db, logger, DURABLE);
    subscriptions.push(
      await bus.consume({
        stream,
        durable: DURABLE,
        filterSubject: deleted,
        handler: async (message) => {
          deliveries.push(message.deliveryCount);
          await handle(message);
        },
      }),
    );
    const event = repoDeleted(gone);
    await publishRepoDeleted(bus, deleted, event);
    await eventually(async () => expect(await activityIn([gone])).toEqual([]));
    expect(deliveries).toEqual([1, 2]);
    // Republished under another message id: recognised by its event id.
    await publishRepoDeleted(bus, deleted, event, crypto.randomUUID());
    await drain(deleted);
    const recorded = await db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM cairn_processed_events WHERE consumer = ${DURABLE} AND event_id = ${event.meta!.eventId}`);
    expect(recorded).toBe(1);
    expect(deliveries).toHaveLength(4);
  });

  it('acknowledges an unreadable event and goes on with the next', async () => {
    const { stream, deleted } = await freshStream();
    subscriptions.push(await startReposConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: deleted }));
    const kept = await repoWithActivity(1);
    await bus.publish(deleted, crypto.randomUUID(), new TextEncoder().encode('not json'));
    const noEventId = repoDeleted(kept);
    noEventId.meta!.eventId = 'not-a-uuid';
    await publishRepoDeleted(bus, deleted, noEventId, crypto.randomUUID());
    await drain(deleted);
    expect(await activityIn([kept])).toEqual([{ user_id: 1, repo_id: kept, contributions: 1 }]);
  });
});
