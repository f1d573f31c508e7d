import { silentLogger } from '@cairn/log';
import { createTestDatabase, uniqueName, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { createInProcessBus } from './in-process-bus';
import { describeBusContract } from './test-support/contract';
import { sleep, waitFor } from './test-support/wait';
import { uuidv7 } from './uuidv7';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('bus_in_process');
});

afterAll(async () => {
  await database.drop();
});

describeBusContract('in-process (PostgreSQL)', {
  prefix: uniqueName('ct'),
  connect: () => createInProcessBus({ url: database.url, logger: silentLogger() }),
  broadcastAcrossInstances: false,
});

describe('in-process stream limits ([bus] STREAM_MAX_AGE, STREAM_MAX_BYTES, EVENTS_MAX_AGE, EVENTS_MAX_BYTES)', () => {
  const encoder = new TextEncoder();

  /** The sequence numbers the stream still holds, oldest first. */
  async function heldSeqs(stream: string): Promise<number[]> {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ seq: string }>('SELECT seq FROM cairn_bus.messages WHERE stream = $1 ORDER BY seq', [stream]);
      return rows.map((row) => Number(row.seq));
    } finally {
      await client.end();
    }
  }

  it('drops the oldest messages past the byte limit and delivers only what the stream still holds', async () => {
    const prefix = uniqueName('lim');
    const bus = await createInProcessBus({ url: database.url, logger: silentLogger(), streamLimits: { maxAgeMs: 0, maxBytes: 25 }, trimIntervalMs: 50 });
    try {
      const stream = `${prefix.toUpperCase()}_BYTES`;
      await bus.ensureStream(stream, [`${prefix}.>`]);
      // Five messages of 10 bytes: only the newest two fit in 25.
      for (let i = 1; i <= 5; i += 1) await bus.publish(`${prefix}.x.y`, uuidv7(), encoder.encode(`message-${i}`.padEnd(10, '.')));
      await waitFor('the stream trimmed to its byte limit', async () => (await heldSeqs(stream)).length === 2);
      expect(await heldSeqs(stream)).toEqual([4, 5]);
      const received: string[] = [];
      const subscription = await bus.consume({ stream, durable: 'late', filterSubject: `${prefix}.>`, handler: async (m) => void received.push(new TextDecoder().decode(m.data)) });
      await waitFor('deliveries', () => received.length === 2);
      await subscription.stop();
      expect(received).toEqual(['message-4.', 'message-5.']);
    } finally {
      await bus.close();
    }
  });

  it('drops messages older than the age limit', async () => {
    const prefix = uniqueName('age');
    const bus = await createInProcessBus({ url: database.url, logger: silentLogger(), streamLimits: { maxAgeMs: 60_000, maxBytes: 0 }, trimIntervalMs: 50 });
    try {
      const stream = `${prefix.toUpperCase()}_AGE`;
      await bus.ensureStream(stream, [`${prefix}.>`]);
      await bus.publish(`${prefix}.x.y`, uuidv7(), encoder.encode('old'));
      await bus.publish(`${prefix}.x.y`, uuidv7(), encoder.encode('new'));
      // The first message is two minutes old; the second is fresh.
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query(`UPDATE cairn_bus.messages SET created_at = now() - interval '2 minutes' WHERE stream = $1 AND seq = 1`, [stream]);
      await client.end();
      await waitFor('the stream trimmed to its age limit', async () => (await heldSeqs(stream)).length === 1);
      expect(await heldSeqs(stream)).toEqual([2]);
    } finally {
      await bus.close();
    }
  });

  it('trims an events stream to the events limits and an internal one to the stream limits', async () => {
    const prefix = uniqueName('kind');
    const bus = await createInProcessBus({
      url: database.url,
      logger: silentLogger(),
      streamLimits: { maxAgeMs: 0, maxBytes: 0 },
      eventStreamLimits: { maxAgeMs: 0, maxBytes: 25 },
      trimIntervalMs: 50,
    });
    try {
      const [events, internal] = [`${prefix.toUpperCase()}_EVENTS`, `${prefix.toUpperCase()}_INTERNAL`];
      await bus.ensureStream(events, [`${prefix}.events.>`], 'events');
      await bus.ensureStream(internal, [`${prefix}.user.>`]);
      for (let i = 1; i <= 5; i += 1) {
        await bus.publish(`${prefix}.events.x`, uuidv7(), encoder.encode('x'.repeat(10)));
        await bus.publish(`${prefix}.user.x`, uuidv7(), encoder.encode('x'.repeat(10)));
      }
      await waitFor('the events stream trimmed to its byte limit', async () => (await heldSeqs(events)).length === 2);
      await sleep(200);
      expect(await heldSeqs(events)).toEqual([4, 5]);
      expect(await heldSeqs(internal)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await bus.close();
    }
  });

  it('keeps everything without limits', async () => {
    const prefix = uniqueName('none');
    const bus = await createInProcessBus({ url: database.url, logger: silentLogger(), trimIntervalMs: 50 });
    try {
      const stream = `${prefix.toUpperCase()}_NONE`;
      await bus.ensureStream(stream, [`${prefix}.>`]);
      for (let i = 1; i <= 3; i += 1) await bus.publish(`${prefix}.x.y`, uuidv7(), encoder.encode('x'.repeat(100)));
      await sleep(200);
      expect(await heldSeqs(stream)).toEqual([1, 2, 3]);
    } finally {
      await bus.close();
    }
  });
});
