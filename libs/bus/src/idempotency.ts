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
