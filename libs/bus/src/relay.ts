import { sql, z, type Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { outboxMetrics } from '@cairn/metrics';
import { outboxChannel } from './outbox';
import { listenForNotifications } from './pg-listener';
import type { Bus } from './types';
import { createWaker } from './wake';

export interface OutboxRelayOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** Longest wait between looks at the outbox when no NOTIFY arrives; default 1000 ms. */
  pollMs?: number;
  /** Rows per transaction; default 100. */
  batchSize?: number;
  /** Published rows older than this are deleted (checked hourly); default 7 days. */
  retentionMs?: number;
  /** How long stop() keeps publishing what is still in the outbox; default 5000 ms. */
  flushTimeoutMs?: number;
}

export interface OutboxRelay {
  /**
   * Finishes the batch in progress, then flushes: publishes every row still waiting (rows the last
   * transactions committed before the service stopped taking work) until the outbox is empty, the bus
   * fails or `flushTimeoutMs` has passed. What is left stays in the outbox for the next start.
   */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 10_000;
const PRUNE_EVERY_MS = 60 * 60_000;
const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60_000;

const DEFAULT_FLUSH_TIMEOUT_MS = 5_000;
/** A batch in progress: up to 100 publishes, each normally answered within milliseconds; a minute allows a slow NATS. */
const BATCH_ALLOWANCE_MS = 60_000;
/** The longest a crashed service waits to be started again: Kubernetes' CrashLoopBackOff cap (the supervisor restarts sooner). */
const RESTART_ALLOWANCE_MS = 5 * 60_000;

/**
 * How long after publishing a row the relays may publish it again: the JetStream duplicate window of every stream
 * (nats-bus.ts), so such a second publish is stored once. A row published but not marked (the marking transaction
 * failed: the database went away, the process was killed, or NATS stored the message but its ack was lost, so the
 * publish counted as failed) stays unpublished and is taken again by the next pass: this relay's, after its backoff
 * (at most MAX_BACKOFF_MS); another replica's, within its poll once the row lock goes with the dead transaction; or
 * the restarted process's, after a stop whose flush took up to DEFAULT_FLUSH_TIMEOUT_MS and a restart. Add the batch
 * that published it (the row is marked only when the whole batch is through): 6 min 15 s. A database outage longer
 * than that can still store a row twice; consumers deduplicate on the event id (at least once).
 */
export const RELAY_RETRY_HORIZON_MS = BATCH_ALLOWANCE_MS + MAX_BACKOFF_MS + DEFAULT_FLUSH_TIMEOUT_MS + RESTART_ALLOWANCE_MS;

const outboxRow = z.object({
  seq: z.number(),
  id: z.string(),
  subject: z.string(),
  data: z.instanceof(Buffer),
  headers: z.record(z.string()).nullable(),
});
const backlogRow = z.object({ pending: z.number(), lag_seconds: z.number() });

interface BatchResult {
  published: number;
  /** The batch was full and went through: more rows may be waiting. */
  more: boolean;
  failure?: { error: unknown; subject?: string; id?: string };
}

/**
 * Publishes the outbox of `db.schema` to the bus in sequence order, with the event id as the message id,
 * and marks rows published. Rows are taken with FOR UPDATE SKIP LOCKED in the transaction that marks
 * them, so several relays on one schema publish each row once (and the bus deduplicates by id should a
 * relay die between publishing and committing). When the bus fails, the rows stay and the relay retries
 * with backoff, so events written while the bus is down go out once it is back.
 *
 * Metrics: `cairn_outbox_published_total{schema}`, and at each scrape `cairn_outbox_pending_events{schema}`
 * and `cairn_outbox_lag_seconds{schema}` (age of the oldest unpublished row) from one query on the partial
 * index of unpublished rows.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus } = options;
  const logger = options.logger.child({ component: 'outbox-relay', schema: db.schema });
  const pollMs = options.pollMs ?? 1_000;
  const batchSize = options.batchSize ?? 100;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const flushTimeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
  const table = sql.identifier([db.schema, 'cairn_outbox']);
  const metrics = outboxMetrics(db.schema, async () => {
    // Ages in the database's clock, the one created_at was written with.
    const row = await db.pool.one(sql.type(backlogRow)`
      SELECT count(*)::int AS pending,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS lag_seconds
      FROM ${table} WHERE published_at IS NULL`);
    return { pending: row.pending, lagSeconds: Math.max(0, row.lag_seconds) };
  });
  const waker = createWaker();
  let stopped = false;
  let backingOff = false;
  let lastPrune = 0;

  // While backing off, new events do not cut the wait short: the bus is what they would wait for.
  const listener = listenForNotifications({
    url: db.url,
    channel: outboxChannel(db.schema),
    logger,
    onNotify: () => {
      if (!backingOff) waker.wake();
    },
  });

  async function relayBatch(): Promise<BatchResult> {
    const result = await db.pool.transaction(async (tx) => {
      const rows = await tx.any(sql.type(outboxRow)`
        SELECT seq, id, subject, data, headers FROM ${table}
        WHERE published_at IS NULL ORDER BY seq LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`);
      const done: number[] = [];
      let failure: BatchResult['failure'];
      for (const row of rows) {
        try {
          await bus.publish(row.subject, row.id, row.data, row.headers ?? undefined);
          done.push(row.seq);
        } catch (error) {
          // Stop at the first failure: while the bus is down every publish would wait out its timeout.
          failure = { error, subject: row.subject, id: row.id };
          break;
        }
      }
      if (done.length > 0) {
        await tx.query(sql.unsafe`UPDATE ${table} SET published_at = now() WHERE seq = ANY(${sql.array(done, 'int8')})`);
      }
      return { published: done.length, more: failure === undefined && rows.length === batchSize, failure };
    });
    if (result.published > 0) metrics.published(result.published);
    return result;
  }

  /** One batch; a failing transaction (database away) is a failure like a failing publish. */
  async function tryBatch(): Promise<BatchResult> {
    try {
      return await relayBatch();
    } catch (error) {
      return { published: 0, more: false, failure: { error } };
    }
  }

  async function pruneIfDue(): Promise<void> {
    if (Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    try {
      const result = await db.pool.query(sql.unsafe`
        DELETE FROM ${table} WHERE published_at < now() - ${retentionMs}::bigint * interval '1 millisecond'`);
      if (result.rowCount > 0) logger.info({ deleted: result.rowCount }, 'pruned published outbox rows');
    } catch (error) {
      logger.warn({ err: error }, 'could not prune the outbox');
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      const result = await tryBatch();
      if (result.failure !== undefined) {
        failures += 1;
        const { error, subject, id } = result.failure;
        logger.warn({ err: error, subject, event_id: id, failures }, 'could not relay outbox events; retrying');
        backingOff = true;
        await waker.sleep(Math.min(250 * 2 ** failures, MAX_BACKOFF_MS));
        backingOff = false;
        continue;
      }
      if (failures > 0) logger.info({ failures }, 'outbox relay recovered');
      failures = 0;
      if (result.more) continue;
      await pruneIfDue();
      if (!stopped) await waker.sleep(pollMs);
    }
  }

  /** Publishes what is left, batch after batch, until nothing is, the bus fails or time is up. */
  async function flush(): Promise<void> {
    const giveUpAt = Date.now() + flushTimeoutMs;
    let published = 0;
    for (;;) {
      const result = await tryBatch();
      published += result.published;
      if (result.failure !== undefined) {
        logger.warn({ err: result.failure.error, published }, 'could not flush the outbox; the rest is published after the next start');
        return;
      }
      if (!result.more) break;
      if (Date.now() >= giveUpAt) {
        logger.warn({ published, flush_timeout_ms: flushTimeoutMs }, 'outbox flush ran out of time; the rest is published after the next start');
        return;
      }
    }
    if (published > 0) logger.info({ published }, 'outbox flushed');
  }

  const loop = run();
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        waker.wake();
        await loop;
        await flush();
        metrics.close();
        await listener.close();
      })()),
  };
}
