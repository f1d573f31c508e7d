import { sql, type Database, type DatabaseTransactionConnection } from '@cairn/db';
import { assertHeaders } from './headers';
import { assertSubject } from './subjects';
import type { BusHeaders } from './types';
import { isUuid, uuidv7 } from './uuidv7';

/** Advisory-lock class for creating the outbox tables, so services starting together do not race. */
const OUTBOX_LOCK_CLASS = 0x0ca1_0b;

/** NOTIFY channel the relay of a schema listens on: this prefix + the schema name. */
const OUTBOX_CHANNEL_PREFIX = 'cairn_outbox_';

export function outboxChannel(schema: string): string {
  return `${OUTBOX_CHANNEL_PREFIX}${schema}`;
}

/**
 * Creates `<schema>.cairn_outbox` (events waiting for the relay), `<schema>.cairn_processed_events` (event ids this
 * service's consumers have applied) and `<schema>.cairn_applied_versions` (the newest version of each copied fact,
 * idempotency.ts `claimVersion`) if missing.
 */
export async function prepareOutbox(db: Database): Promise<void> {
  const outbox = sql.identifier([db.schema, 'cairn_outbox']);
  const processed = sql.identifier([db.schema, 'cairn_processed_events']);
  const versions = sql.identifier([db.schema, 'cairn_applied_versions']);
  await db.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_CLASS}, hashtext(${db.schema}))`);
    await tx.query(sql.unsafe`
      CREATE TABLE IF NOT EXISTS ${outbox} (
        seq          bigserial PRIMARY KEY,
        id           uuid NOT NULL UNIQUE,
        subject      text NOT NULL,
        data         bytea NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    // Added with the public event stream (its CloudEvents headers); older outboxes gain it here.
    await tx.query(sql.unsafe`ALTER TABLE ${outbox} ADD COLUMN IF NOT EXISTS headers jsonb`);
    await tx.query(sql.unsafe`
      CREATE INDEX IF NOT EXISTS cairn_outbox_unpublished ON ${outbox} (seq) WHERE published_at IS NULL`);
    await tx.query(sql.unsafe`
      CREATE INDEX IF NOT EXISTS cairn_outbox_published ON ${outbox} (published_at) WHERE published_at IS NOT NULL`);
    await tx.query(sql.unsafe`
      CREATE TABLE IF NOT EXISTS ${processed} (
        consumer     text NOT NULL,
        event_id     uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    await tx.query(sql.unsafe`
      CREATE TABLE IF NOT EXISTS ${versions} (
        consumer text NOT NULL,
        key      text NOT NULL,
        version  bigint NOT NULL,
        PRIMARY KEY (consumer, key)
      )`);
  });
}

export interface OutboxEvent {
  subject: string;
  data: Uint8Array;
  /** The event id (a UUID, normally the payload's `EventMeta.event_id`); a new UUIDv7 if absent. */
  id?: string;
  /** Published with the message (the public stream's CloudEvents attributes); none if absent. */
  headers?: BusHeaders;
}

/**
 * Adds an event to the outbox inside the caller's transaction: it is published if and only if the
 * transaction commits. The table is found through the connection's search_path (set by @cairn/db to
 * the service schema), and the relay is woken by a NOTIFY that PostgreSQL delivers at commit.
 */
export async function enqueueEvent(tx: DatabaseTransactionConnection, event: OutboxEvent): Promise<string> {
  // Checked here, in the writer's transaction: a row the bus refuses would stall the relay.
  assertSubject(event.subject);
  assertHeaders(event.headers);
  const id = event.id ?? uuidv7();
  if (!isUuid(id)) throw new Error(`event id must be a UUID, got "${id}"`);
  const data = Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength);
  // One statement for the row and its NOTIFY: a round trip fewer in every writing transaction.
  await tx.query(sql.unsafe`
    WITH queued AS (
      INSERT INTO cairn_outbox (id, subject, data, headers)
      VALUES (${id}, ${event.subject}, ${sql.binary(data)}, ${event.headers === undefined ? null : JSON.stringify(event.headers)}::jsonb)
      RETURNING seq)
    SELECT pg_notify(${OUTBOX_CHANNEL_PREFIX} || current_schema(), '') FROM queued`);
  return id;
}
