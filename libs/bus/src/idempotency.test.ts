import { openDatabase, sql, z, type Database, type DatabaseTransactionConnection } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { claimVersion, processOnce } from './idempotency';
import { prepareOutbox } from './outbox';
import { uuidv7 } from './uuidv7';

let database: TestDatabase;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase('bus_idempotency');
  db = await openDatabase({ url: database.url, schema: 'consumer_svc', logger: silentLogger() });
  await prepareOutbox(db);
  await db.pool.query(sql.unsafe`CREATE TABLE effects (event_id uuid NOT NULL, note text NOT NULL)`);
});

afterAll(async () => {
  await db.close();
  await database.drop();
});

async function effectsOf(eventId: string): Promise<string[]> {
  return [...(await db.pool.anyFirst(sql.type(z.object({ note: z.string() }))`SELECT note FROM effects WHERE event_id = ${eventId} ORDER BY note`))];
}

const record = (eventId: string, note: string) => async (tx: DatabaseTransactionConnection) => {
  await tx.query(sql.unsafe`INSERT INTO effects (event_id, note) VALUES (${eventId}, ${note})`);
};

describe('processOnce', () => {
  it('applies a redelivered event only once', async () => {
    const id = uuidv7();
    expect(await processOnce(db, 'notifications-fanout', id, record(id, 'first'))).toBe(true);
    expect(await processOnce(db, 'notifications-fanout', id, record(id, 'second'))).toBe(false);
    expect(await effectsOf(id)).toEqual(['first']);
  });

  it('keeps consumers apart: each applies the event once', async () => {
    const id = uuidv7();
    expect(await processOnce(db, 'hooks-deliver', id, record(id, 'hooks'))).toBe(true);
    expect(await processOnce(db, 'feed-build', id, record(id, 'feed'))).toBe(true);
    expect(await effectsOf(id)).toEqual(['feed', 'hooks']);
  });

  it('rolls back the marker with a failing effect, so the retry applies it', async () => {
    const id = uuidv7();
    await expect(
      processOnce(db, 'notifications-fanout', id, async (tx) => {
        await record(id, 'partial')(tx);
        throw new Error('effect failed');
      }),
    ).rejects.toThrow('effect failed');
    expect(await effectsOf(id)).toEqual([]);
    expect(await processOnce(db, 'notifications-fanout', id, record(id, 'retry'))).toBe(true);
    expect(await effectsOf(id)).toEqual(['retry']);
  });

  it('applies an event delivered to two consumers at once only once', async () => {
    const id = uuidv7();
    const results = await Promise.all([
      processOnce(db, 'notifications-fanout', id, async (tx) => {
        await record(id, 'a')(tx);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }),
      processOnce(db, 'notifications-fanout', id, record(id, 'b')),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await effectsOf(id)).toHaveLength(1);
  });

  it('refuses an id that is not a UUID', async () => {
    await expect(processOnce(db, 'notifications-fanout', 'nope', async () => {})).rejects.toThrow('UUID');
  });
});

describe('claimVersion', () => {
  const claim = (key: string, version: number, consumer = 'repos-accounts') =>
    db.pool.transaction((tx) => claimVersion(tx, { consumer, key, version }));

  it('refuses a version older than the one applied, and takes an equal or newer one', async () => {
    expect(await claim('owner:1:name', 5)).toBe(true);
    expect(await claim('owner:1:name', 4)).toBe(false);
    expect(await claim('owner:1:name', 5)).toBe(true);
    expect(await claim('owner:1:name', 7)).toBe(true);
    expect(await claim('owner:1:name', 6)).toBe(false);
  });

  it('keeps keys and consumers apart; an unversioned event (0) applies only while nothing newer has', async () => {
    expect(await claim('owner:2:name', 0)).toBe(true);
    expect(await claim('owner:2:visibility', 3)).toBe(true);
    expect(await claim('owner:2:name', 3, 'social-users')).toBe(true);
    expect(await claim('owner:2:name', 2)).toBe(true);
    expect(await claim('owner:2:name', 0)).toBe(false);
  });

  it('refuses an older delivery that overlaps a newer one still in its transaction', async () => {
    let releaseNewer!: () => void;
    const newerHeld = new Promise<void>((resolve) => (releaseNewer = resolve));
    let newerClaimed!: () => void;
    const claimedNewer = new Promise<void>((resolve) => (newerClaimed = resolve));
    const newer = db.pool.transaction(async (tx) => {
      const claimed = await claimVersion(tx, { consumer: 'repos-accounts', key: 'owner:3:name', version: 9 });
      newerClaimed();
      await newerHeld;
      return claimed;
    });
    await claimedNewer;
    const older = claim('owner:3:name', 8);
    releaseNewer();
    expect(await newer).toBe(true);
    expect(await older).toBe(false);
  });
});
