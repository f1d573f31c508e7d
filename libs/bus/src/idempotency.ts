import { sql, type Database, type DatabaseTransactionConnection } from '@cairn/db';
import { isUuid } from './uuidv7';

/**
 * Idempotent consumer: applies `effect` at most once per (consumer, eventId). The event id is recorded
 * in `<schema>.cairn_processed_events` in the same transaction as the effect, so a redelivered event
 * is a no-op and a failing effect leaves no record (the throw propagates and the event comes back).
 * A concurrent attempt on the same event waits on the row and then sees it recorded.
 *
 * @returns true if the effect ran and committed, false if the event had been processed already.
 */
export async function processOnce(
  db: Database,
  consumer: string,
  eventId: string,
  effect: (tx: DatabaseTransactionConnection) => Promise<void>,
): Promise<boolean> {
  if (!isUuid(eventId)) throw new Error(`event id must be a UUID, got "${eventId}"`);
  const table = sql.identifier([db.schema, 'cairn_processed_events']);
  return db.pool.transaction(async (tx) => {
    const recorded = await tx.query(sql.unsafe`
      INSERT INTO ${table} (consumer, event_id) VALUES (${consumer}, ${eventId}) ON CONFLICT DO NOTHING`);
    if (recorded.rowCount === 0) return false;
    await effect(tx);
    return true;
  });
}

/**
 * Version guard for state a consumer copies from another service's events (an account's name, its visibility).
 * Events about one aggregate can arrive out of order (several relays, redeliveries after a failure), so an older one
 * must not overwrite what a newer one set. Records `version` as the newest applied for (consumer, key) in
 * `cairn_applied_versions` (found through the search_path, like the outbox), in the caller's transaction, and answers
 * whether to apply the event: true when `version` is at least the recorded one (an equal version is the same state
 * again; 0, an event from before the producer had versions, applies only while nothing newer has). The row it
 * writes is locked until commit, so of two concurrent deliveries for one key the later sees the earlier's version.
 */
export async function claimVersion(
  tx: DatabaseTransactionConnection,
  fact: { consumer: string; key: string; version: number },
): Promise<boolean> {
  const { consumer, key, version } = fact;
  const claimed = await tx.query(sql.unsafe`
    INSERT INTO cairn_applied_versions AS applied (consumer, key, version) VALUES (${consumer}, ${key}, ${version})
    ON CONFLICT (consumer, key) DO UPDATE SET version = EXCLUDED.version WHERE applied.version <= EXCLUDED.version`);
  return claimed.rowCount === 1;
}
