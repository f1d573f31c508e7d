/**
 * NATS going away and coming back, against a private nats-server this file starts and stops
 * (the shared one on 4222 must stay up for other test files).
 */
import { openDatabase, type Database } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { connectNatsBus } from './nats-bus';
import { enqueueEvent, prepareOutbox } from './outbox';
import { startOutboxRelay } from './relay';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from './test-support/nats-server';
import { waitFor } from './test-support/wait';
import type { Bus, BusMessage } from './types';
import { uuidv7 } from './uuidv7';

const logger = silentLogger();
const binary = findNatsServer();
const encoder = new TextEncoder();

// Without a nats-server binary (e.g. NATS only as a remote service) this file cannot simulate an outage.
(binary === undefined ? describe.skip : describe)('NATS outage', () => {
  let server: PrivateNatsServer;
  let database: TestDatabase;
  let db: Database;
  let bus: Bus;

  beforeAll(async () => {
    server = await startPrivateNatsServer(binary!);
    database = await createTestDatabase('bus_nats_outage');
    db = await openDatabase({ url: database.url, schema: 'svc', logger });
    await prepareOutbox(db);
    bus = await connectNatsBus({ url: server.url, logger, requestTimeoutMs: 1_000 });
    await bus.ensureStream('OUTAGE', ['outage.>']);
  });

  afterAll(async () => {
    await bus?.close();
    await db?.close();
    await database?.drop();
    await server?.dispose();
  });

  it('rejects a publish while the server is unreachable, and publishes again once it is back', async () => {
    await server.stop();
    await expect(bus.publish('outage.x.y', uuidv7(), encoder.encode('x'))).rejects.toThrow();
    await server.start();
    const id = uuidv7();
    await waitFor('a publish to succeed', () => bus.publish('outage.x.y', id, encoder.encode('x')).then(() => true, () => false), 20_000);
  });

  it('delivers an event enqueued while NATS is down after it returns', async () => {
    const received: BusMessage[] = [];
    const sub = await bus.consume({ stream: 'OUTAGE', durable: 'reader', filterSubject: 'outage.user.>', handler: async (m) => void received.push(m) });
    let failures = 0;
    const counting: Bus = {
      ...bus,
      publish: (subject, id, data) => bus.publish(subject, id, data).catch((error: unknown) => {
        failures += 1;
        throw error;
      }),
    };
    const relay = startOutboxRelay({ db, bus: counting, logger, pollMs: 200 });
    try {
      await server.stop();
      const id = await db.pool.transaction((tx) => enqueueEvent(tx, { subject: 'outage.user.created', data: encoder.encode('while down') }));
      await waitFor('a failed relay attempt', () => failures > 0);
      expect(received).toEqual([]);
      await server.start();
      await waitFor('delivery after the server returned', () => received.length > 0, 30_000);
      expect(received.map((m) => m.id)).toEqual([id]);
      expect(Buffer.from(received[0].data).toString()).toBe('while down');
    } finally {
      await relay.stop();
      await sub.stop();
    }
  });
});
