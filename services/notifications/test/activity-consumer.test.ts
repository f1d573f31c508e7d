/**
 * The notifications-activity consumer on both buses: a push is counted once however often its event arrives
 * (published twice under one message id, republished under another, redelivered after a lost acknowledgement
 * or after a failed attempt), and unreadable events do not block the ones behind them.
 */
import { type Bus, type BusMessage, type Subscription, prepareOutbox } from '@cairn/bus';
import { type Database, openDatabase, sql, z } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, eventually, uniqueName, type TestDatabase } from '@cairn/testing';
import { MIGRATIONS_DIR, gitPushedHandler, startActivityConsumer } from '../src/index';
import { busAdapters } from './buses';
import { ZERO_SHA, branchUpdate, gitPushed, publishPush } from './harness';

const logger = silentLogger();
const DURABLE = 'activity';

describe.each(busAdapters(logger))('notifications-activity on the %s bus', (_adapter, connectBus, cleanUp) => {
  const prefix = uniqueName('notif_consumer');
  let database: TestDatabase;
  let db: Database;
  let bus: Bus;
  let streams = 0;
  let nextPusher = 100;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('notif_consumer');
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

  /** A stream of this test's own (unique subjects, so it never overlaps CAIRN_GIT) and its push subject. */
  async function freshStream(): Promise<{ stream: string; subject: string }> {
    streams += 1;
    const stream = `${prefix.toUpperCase()}_${streams}`;
    const root = `${prefix}${streams}`;
    await bus.ensureStream(stream, [`${root}.>`]);
    return { stream, subject: `${root}.git.pushed` };
  }

  const bucketRow = z.object({ bucket: z.date(), repo_id: z.number(), contributions: z.number() });

  async function contributions(userId: number): Promise<ReadonlyArray<z.infer<typeof bucketRow>>> {
    return db.pool.any(sql.type(bucketRow)`
      SELECT bucket, repo_id, contributions FROM activity_buckets WHERE user_id = ${userId} ORDER BY bucket, repo_id`);
  }

  /** Publishes a push of a pusher of its own behind everything else and waits until it is counted. */
  async function drain(subject: string): Promise<void> {
    const sentinel = nextPusher++;
    await publishPush(bus, subject, gitPushed({ pusherId: sentinel }));
    await eventually(async () => expect(await contributions(sentinel)).toHaveLength(1));
  }

  it('adds a push’s contributions to the pusher’s bucket of the push time in its repository', async () => {
    const { stream, subject } = await freshStream();
    subscriptions.push(await startActivityConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: subject }));
    const pusherId = nextPusher++;
    const refUpdates = [branchUpdate('main'), { ref: 'refs/heads/topic', oldSha: ZERO_SHA, newSha: 'c'.repeat(40) }];
    await publishPush(bus, subject, gitPushed({ pusherId, repoId: 5, refUpdates, pushedAt: new Date('2025-06-01T12:07:13Z') }));
    await eventually(async () =>
      expect(await contributions(pusherId)).toEqual([{ bucket: new Date('2025-06-01T12:00:00Z'), repo_id: 5, contributions: 3 }]),
    );
  });

  it('counts an event published twice under one message id once', async () => {
    const { stream, subject } = await freshStream();
    subscriptions.push(await startActivityConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: subject }));
    const pusherId = nextPusher++;
    const event = gitPushed({ pusherId });
    await publishPush(bus, subject, event);
    await publishPush(bus, subject, event);
    await drain(subject);
    expect((await contributions(pusherId)).map((row) => row.contributions)).toEqual([1]);
  });

  it('counts an event republished under another message id once (same event id)', async () => {
    const { stream, subject } = await freshStream();
    subscriptions.push(await startActivityConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: subject }));
    const pusherId = nextPusher++;
    const event = gitPushed({ pusherId });
    await publishPush(bus, subject, event);
    await publishPush(bus, subject, event, crypto.randomUUID());
    await drain(subject);
    expect((await contributions(pusherId)).map((row) => row.contributions)).toEqual([1]);
  });

  it('counts an event redelivered after its acknowledgement was lost once', async () => {
    const { stream, subject } = await freshStream();
    const handle = gitPushedHandler(db, logger, DURABLE);
    const deliveries: BusMessage[] = [];
    // The work commits, then the acknowledgement never happens: the bus delivers the event again.
    const handler = async (message: BusMessage) => {
      deliveries.push(message);
      await handle(message);
      if (message.deliveryCount === 1) throw new Error('lost acknowledgement');
    };
    subscriptions.push(await bus.consume({ stream, durable: DURABLE, filterSubject: subject, handler }));
    const pusherId = nextPusher++;
    await publishPush(bus, subject, gitPushed({ pusherId }));
    await eventually(() => expect(deliveries.map((message) => message.deliveryCount)).toEqual([1, 2]));
    await drain(subject);
    expect((await contributions(pusherId)).map((row) => row.contributions)).toEqual([1]);
  });

  it('counts an event whose first attempt failed once, on its redelivery', async () => {
    const { stream, subject } = await freshStream();
    const pusherId = nextPusher++;
    // The first write for this pusher fails inside its transaction (a sequence is not rolled back with it).
    await db.pool.query(sql.unsafe`CREATE TABLE fail_first_insert (user_id bigint PRIMARY KEY)`);
    await db.pool.query(sql.unsafe`CREATE SEQUENCE fail_first_insert_attempts`);
    await db.pool.query(sql.unsafe`
      CREATE FUNCTION fail_first_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM fail_first_insert WHERE user_id = NEW.user_id) AND nextval('fail_first_insert_attempts') = 1 THEN
          RAISE EXCEPTION 'injected failure';
        END IF;
        RETURN NEW;
      END $$`);
    await db.pool.query(sql.unsafe`
      CREATE TRIGGER fail_first_insert BEFORE INSERT ON activity_buckets FOR EACH ROW EXECUTE FUNCTION fail_first_insert()`);
    await db.pool.query(sql.unsafe`INSERT INTO fail_first_insert (user_id) VALUES (${pusherId})`);
    const deliveries: number[] = [];
    const handle = gitPushedHandler(db, logger, DURABLE);
    subscriptions.push(
      await bus.consume({
        stream,
        durable: DURABLE,
        filterSubject: subject,
        handler: async (message) => {
          deliveries.push(message.deliveryCount);
          await handle(message);
        },
      }),
    );
    await publishPush(bus, subject, gitPushed({ pusherId }));
    await eventually(async () => expect((await contributions(pusherId)).map((row) => row.contributions)).toEqual([1]));
    expect(deliveries).toEqual([1, 2]);
  });

  it('acknowledges an unreadable event and goes on with the next', async () => {
    const { stream, subject } = await freshStream();
    subscriptions.push(await startActivityConsumer({ db, bus, logger, stream, durable: DURABLE, filterSubject: subject }));
    await bus.publish(subject, crypto.randomUUID(), new TextEncoder().encode('not json'));
    const noEventId = gitPushed({ pusherId: nextPusher++ });
    noEventId.meta!.eventId = 'not-a-uuid';
    await publishPush(bus, subject, noEventId, crypto.randomUUID());
    await drain(subject);
    expect(await contributions(noEventId.pusherId)).toEqual([]);
  });
});
