import { openDatabase, sql, z, type Database } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { METRIC_NAMES, metricValue } from '@cairn/metrics';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { createInProcessBus } from './in-process-bus';
import { enqueueEvent, prepareOutbox } from './outbox';
import { startOutboxRelay, type OutboxRelay } from './relay';
import { RecordingBus, withOutage } from './test-support/fake-bus';
import type { Bus, BusMessage } from './types';
import { uuidv7 } from './uuidv7';
import { waitFor } from './test-support/wait';

const logger = silentLogger();
let database: TestDatabase;
let counter = 0;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  database = await createTestDatabase('bus_relay');
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await database.drop();
});

/** A fresh service schema with its outbox, closed after the test. */
async function serviceDatabase(): Promise<Database> {
  counter += 1;
  const db = await openDatabase({ url: database.url, schema: `svc_${counter}`, logger });
  cleanups.push(() => db.close());
  await prepareOutbox(db);
  return db;
}

function relay(db: Database, bus: Bus, pollMs = 200): OutboxRelay {
  const started = startOutboxRelay({ db, bus, logger, pollMs });
  cleanups.push(() => started.stop());
  return started;
}

async function unpublishedCount(db: Database): Promise<number> {
  return db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM ${sql.identifier([db.schema, 'cairn_outbox'])} WHERE published_at IS NULL`);
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('outbox and relay', () => {
  it('creates its tables idempotently, also concurrently', async () => {
    const db = await serviceDatabase();
    await Promise.all([prepareOutbox(db), prepareOutbox(db), prepareOutbox(db)]);
    expect(await unpublishedCount(db)).toBe(0);
  });

  it('publishes nothing from a transaction that rolls back, and a committed event once with its id', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    relay(db, bus);
    await expect(
      db.pool.transaction(async (tx) => {
        await enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('rolled back') });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const id = await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('committed') }));
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor('row marked published', async () => (await unpublishedCount(db)) === 0);
    expect(bus.published.map((p) => [p.subject, p.id, Buffer.from(p.data).toString()])).toEqual([['cairn.user.created', id, 'committed']]);
  });

  it('is woken by the commit of a writing transaction, not by its poll', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    // No poll within the test: only a NOTIFY (or the listener's wake once it listens) starts a batch.
    relay(db, bus, 600_000);
    await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('first') }));
    // Published once the listener listens (its wake after LISTEN, or the NOTIFY): from here on it does.
    await waitFor('first event published', async () => bus.published.length === 1);
    await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('second') }));
    await waitFor('second event published', async () => bus.published.length === 2);
    expect(bus.published.map((p) => Buffer.from(p.data).toString())).toEqual(['first', 'second']);
  });

  it('keeps the caller-given event id', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    relay(db, bus);
    const id = uuidv7();
    expect(await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.deleted', data: bytes('x'), id }))).toBe(id);
    await waitFor('publish', () => bus.published.length === 1);
    expect(bus.published[0].id).toBe(id);
  });

  it('rejects an event that could never be published', async () => {
    const db = await serviceDatabase();
    await expect(db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.*', data: bytes('x') }))).rejects.toThrow();
    await expect(db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('x'), id: 'nope' }))).rejects.toThrow();
    expect(await unpublishedCount(db)).toBe(0);
  });

  it('keeps events while the bus is down and delivers them after it returns', async () => {
    const db = await serviceDatabase();
    const inner = await createInProcessBus({ url: database.url, logger });
    cleanups.push(() => inner.close());
    await inner.ensureStream('RELAY_OUTAGE', ['relayoutage.>']);
    const received: BusMessage[] = [];
    const sub = await inner.consume({
      stream: 'RELAY_OUTAGE', durable: 'reader', filterSubject: 'relayoutage.>', handler: async (m) => void received.push(m),
    });
    cleanups.push(() => sub.stop());
    const outage = withOutage(inner);
    outage.setDown(true);
    relay(db, outage.bus);

    const id = await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'relayoutage.user.created', data: bytes('late') }));
    await waitFor('two failed attempts', () => outage.failures() >= 2);
    expect(await unpublishedCount(db)).toBe(1);
    expect(received).toEqual([]);

    outage.setDown(false);
    await waitFor('delivery', () => received.length === 1);
    expect(received[0].id).toBe(id);
    expect(Buffer.from(received[0].data).toString()).toBe('late');
    await waitFor('row marked published', async () => (await unpublishedCount(db)) === 0);
  });

  it('publishes a row with the headers it was enqueued with, and a row without headers with none', async () => {
    const db = await serviceDatabase();
    const bus = await createInProcessBus({ url: database.url, logger });
    cleanups.push(() => bus.close());
    await bus.ensureStream('RELAY_HEADERS', ['relayheaders.>'], 'events');
    const received: BusMessage[] = [];
    const sub = await bus.consume({ stream: 'RELAY_HEADERS', durable: 'reader', filterSubject: 'relayheaders.>', handler: async (m) => void received.push(m) });
    cleanups.push(() => sub.stop());
    relay(db, bus);
    const headers = { 'ce-specversion': '1.0', 'ce-id': uuidv7(), 'ce-type': 'io.cairn.issues.opened' };
    const [withHeaders, without] = await db.pool.transaction(async (tx) => [
      await enqueueEvent(tx, { subject: 'relayheaders.issues', data: bytes('{}'), id: headers['ce-id'], headers }),
      await enqueueEvent(tx, { subject: 'relayheaders.internal', data: bytes('x') }),
    ]);
    await waitFor('both deliveries', () => received.length === 2);
    expect(received.map((m) => [m.id, m.headers])).toEqual([[withHeaders, headers], [without, {}]]);
  });

  it('refuses to enqueue a header NATS cannot carry, in the writer\'s transaction', async () => {
    const db = await serviceDatabase();
    await expect(
      db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('x'), headers: { 'ce-subject': 'a\nb' } })),
    ).rejects.toThrow(/CR or LF/);
    await expect(db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'cairn.user.created', data: bytes('x'), headers: { 'bad name': 'x' } }))).rejects.toThrow(
      /header name/,
    );
    expect(await unpublishedCount(db)).toBe(0);
  });

  it('publishes each row once with two relays on one schema', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      await db.pool.transaction(async (tx) => {
        for (let j = 0; j < 50; j += 1) ids.push(await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes(`${i}.${j}`) }));
      });
    }
    const relays = [
      startOutboxRelay({ db, bus, logger, pollMs: 100, batchSize: 20 }),
      startOutboxRelay({ db, bus, logger, pollMs: 100, batchSize: 20 }),
    ];
    cleanups.push(async () => void (await Promise.all(relays.map((r) => r.stop()))));
    await waitFor('every row marked published', async () => (await unpublishedCount(db)) === 0);
    expect(bus.published.map((p) => p.id).sort()).toEqual([...ids].sort());
  });

  it('finishes the batch in progress when stopped', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    await db.pool.transaction(async (tx) => {
      for (let j = 0; j < 30; j += 1) await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes(`${j}`) });
    });
    const started = startOutboxRelay({ db, bus, logger, pollMs: 100, batchSize: 30 });
    await waitFor('first publish', () => bus.published.length > 0);
    await started.stop();
    expect(bus.published).toHaveLength(30);
    expect(await unpublishedCount(db)).toBe(0);
  });

  it('flushes every waiting row when stopped, not just the batch in progress', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    await db.pool.transaction(async (tx) => {
      for (let j = 0; j < 250; j += 1) await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes(`${j}`) });
    });
    // A long poll and small batches: without the flush, stop() would leave most rows behind.
    const started = startOutboxRelay({ db, bus, logger, pollMs: 60_000, batchSize: 20 });
    await started.stop();
    expect(bus.published).toHaveLength(250);
    expect(await unpublishedCount(db)).toBe(0);
  });

  it('gives up the flush when the bus fails, leaving the rows for the next start', async () => {
    const db = await serviceDatabase();
    const recording = new RecordingBus();
    const outage = withOutage(recording);
    outage.setDown(true);
    await db.pool.transaction(async (tx) => {
      for (let j = 0; j < 3; j += 1) await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes(`${j}`) });
    });
    const first = startOutboxRelay({ db, bus: outage.bus, logger, pollMs: 100 });
    await waitFor('a failed attempt', () => outage.failures() >= 1);
    const failuresBefore = outage.failures();
    await first.stop();
    expect(outage.failures()).toBeGreaterThan(failuresBefore);
    expect(await unpublishedCount(db)).toBe(3);

    outage.setDown(false);
    relay(db, outage.bus);
    await waitFor('published after the next start', async () => (await unpublishedCount(db)) === 0);
    expect(recording.published).toHaveLength(3);
  });

  it('stops flushing once flushTimeoutMs has passed', async () => {
    const db = await serviceDatabase();
    const bus = new RecordingBus();
    await db.pool.transaction(async (tx) => {
      for (let j = 0; j < 100; j += 1) await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes(`${j}`) });
    });
    const started = startOutboxRelay({ db, bus, logger, pollMs: 60_000, batchSize: 10, flushTimeoutMs: 0 });
    await started.stop();
    expect(bus.published.length).toBeGreaterThanOrEqual(10);
    expect(await unpublishedCount(db)).toBe(100 - bus.published.length);
    expect(await unpublishedCount(db)).toBeGreaterThan(0);
  });

  it('reports the backlog, the age of the oldest waiting row and what it published', async () => {
    const db = await serviceDatabase();
    const recording = new RecordingBus();
    const outage = withOutage(recording);
    outage.setDown(true);
    const schema = db.schema;
    const started = startOutboxRelay({ db, bus: outage.bus, logger, pollMs: 100 });
    expect(await metricValue(METRIC_NAMES.outboxPending, { schema })).toBe(0);
    expect(await metricValue(METRIC_NAMES.outboxLag, { schema })).toBe(0);

    await db.pool.transaction(async (tx) => {
      await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes('old') });
      await enqueueEvent(tx, { subject: 'cairn.x.y', data: bytes('new') });
    });
    await db.pool.query(sql.unsafe`
      UPDATE ${sql.identifier([schema, 'cairn_outbox'])} SET created_at = now() - interval '1 hour'
      WHERE seq = (SELECT min(seq) FROM ${sql.identifier([schema, 'cairn_outbox'])})`);
    await waitFor('the backlog to show', async () => (await metricValue(METRIC_NAMES.outboxPending, { schema })) === 2);
    const lag = await metricValue(METRIC_NAMES.outboxLag, { schema });
    expect(lag).toBeGreaterThanOrEqual(3600);
    expect(lag).toBeLessThan(3600 + 60);

    outage.setDown(false);
    await waitFor('the backlog to drain', async () => (await metricValue(METRIC_NAMES.outboxPending, { schema })) === 0);
    expect(await metricValue(METRIC_NAMES.outboxLag, { schema })).toBe(0);
    expect(await metricValue(METRIC_NAMES.outboxPublished, { schema })).toBe(2);

    await started.stop();
    expect(await metricValue(METRIC_NAMES.outboxPending, { schema })).toBeUndefined();
  });
});
