import path from 'node:path';
import { openDatabase, sql, z, type DatabaseTransactionConnection, type QuerySqlToken } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { consumerMetrics } from '@cairn/metrics';
import { bindWhenReady } from './binding';
import { DEFAULT_ACK_WAIT_MS, isLastDelivery, logHandlerFailure, redeliveryDelayMs } from './delivery';
import { normalisedHeaders } from './headers';
import { prefixedBus } from './namespace';
import { listenForNotifications } from './pg-listener';
import { assertSubject, assertSubjectFilter, subjectFilterPattern, subjectFiltersOverlap, subjectMatches } from './subjects';
import type { BroadcastHandler, Bus, BusHeaders, BusMessage, ConsumeOptions, StreamKind, StreamLimits, Subscription } from './types';
import { createWaker, delay, type Waker } from './wake';

export interface InProcessBusOptions {
  /** PostgreSQL URL; the bus keeps its state in schema `cairn_bus` there. */
  url: string;
  logger: Logger;
  /** Longest a consumer sleeps before looking for work it was not woken for; default 1000 ms. */
  pollMs?: number;
  /** Size of the bus's own pool; default 5. */
  maxConnections?: number;
  /** `[bus] PREFIX`: the names the services use are this installation's under it (namespace.ts); default none (names as given). */
  prefix?: string;
  /** `[bus] STREAM_MAX_AGE` / `STREAM_MAX_BYTES` for the `internal` streams this instance defines; default none. */
  streamLimits?: StreamLimits;
  /** `[bus] EVENTS_MAX_AGE` / `EVENTS_MAX_BYTES` for the `events` streams this instance defines; default none. */
  eventStreamLimits?: StreamLimits;
  /** How often those streams are trimmed to their limits; default 60 s. */
  trimIntervalMs?: number;
}

const SCHEMA = 'cairn_bus';
/** NOTIFY channel (payload: `<stream> <subject>`) that wakes consumers of other bus instances on the same database. */
const CHANNEL = 'cairn_bus';
/** Advisory-lock class serialising stream definitions. */
const STREAMS_LOCK_CLASS = 0x0ca1_b5;
/** Works from src/ and dist/ alike. */
const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
/** Messages one consumer claims at a time; their ack wait starts at the claim. */
const CLAIM_BATCH = 10;
const MAX_ERROR_BACKOFF_MS = 10_000;
const MIN_SLEEP_MS = 10;
/** Stream names as JetStream accepts them. */
const STREAM_NAME = /^[^\s.*>/\\]{1,255}$/;

interface StreamDefinition {
  name: string;
  subjects: string[];
}

interface Claimed extends BusMessage {
  seq: number;
}

interface LocalConsumer {
  stream: string;
  filterSubject: string;
  waker: Waker;
}

interface ClaimResult {
  messages: Claimed[];
  /** How soon a held or retried message becomes available again, if any is pending. */
  nextDueMs: number | undefined;
}

const streamRow = z.object({ name: z.string(), subjects: z.array(z.string()) });
const seqRow = z.object({ seq: z.number() });
const redeliveryRow = z.object({ seq: z.number(), delivery_count: z.number() });
const consumerRow = z.object({
  delivered_seq: z.number(),
  filter_subject: z.string(),
  ack_wait_ms: z.number(),
  max_ack_pending: z.number().nullable(),
});
const candidateRow = z.object({ last_seq: z.number(), seq: z.number().nullable() });
const messageRow = z.object({
  seq: z.number(),
  subject: z.string(),
  id: z.string(),
  data: z.instanceof(Buffer),
  headers: z.record(z.string()).nullable(),
});
const dueRow = z.object({ due_in_ms: z.number().nullable() });
const lagRow = z.object({ lag: z.number() });
const countRow = z.object({ count: z.number() });

/**
 * The embedded-mode bus: the same contract as JetStream, kept in PostgreSQL. Streams are message logs
 * with dedup by id; a durable consumer is a row with the highest sequence handed out plus one `pending`
 * row per unacknowledged message (holder's lease = ack wait, or a failed delivery's retry time), so
 * delivery state survives restarts and consumers sharing a durable (in any process) never hold the same
 * message at once. Publishing wakes this process's consumers directly and other processes' via NOTIFY;
 * a poll timer covers anything missed.
 */
export async function createInProcessBus(options: InProcessBusOptions): Promise<Bus> {
  const bus = await createRawInProcessBus(options);
  return options.prefix === undefined ? bus : prefixedBus(bus, options.prefix);
}

async function createRawInProcessBus(options: InProcessBusOptions): Promise<Bus> {
  const logger = options.logger.child({ component: 'in-process-bus' });
  const pollMs = options.pollMs ?? 1_000;
  const db = await openDatabase({
    url: options.url,
    schema: SCHEMA,
    logger,
    maxConnections: options.maxConnections ?? 5,
    migrationsDir: MIGRATIONS_DIR,
  });
  const consumers = new Set<LocalConsumer>();
  const subscriptions = new Set<Subscription>();
  const broadcasts = new Set<{ filterSubject: string; handler: BroadcastHandler }>();
  const waitingForStreams = new Set<Waker>();
  let streams: StreamDefinition[] = [];
  /** The streams this instance defined, with their kind: their producer's limits are this instance's, as on JetStream. */
  const ownStreams = new Map<string, StreamKind>();

  /** Wakes the consumers a new message concerns; all of them when that is unknown. */
  function wakeConsumers(stream?: string, subject?: string): void {
    for (const c of consumers) {
      if (stream === undefined || (c.stream === stream && (subject === undefined || subjectMatches(c.filterSubject, subject)))) c.waker.wake();
    }
  }

  async function loadStreams(): Promise<void> {
    const rows = await db.pool.any(sql.type(streamRow)`SELECT name, subjects FROM cairn_bus.streams ORDER BY name`);
    streams = rows.map((r) => ({ name: r.name, subjects: [...r.subjects] }));
  }

  async function ensureStream(name: string, subjects: string[], kind: StreamKind = 'internal'): Promise<void> {
    if (!STREAM_NAME.test(name)) throw new Error(`invalid stream name "${name}"`);
    subjects.forEach(assertSubjectFilter);
    const wanted = [...new Set(subjects)].sort();
    await db.pool.transaction(async (tx) => {
      // Serialises stream changes, so the overlap check below sees every other stream's final subjects.
      await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${STREAMS_LOCK_CLASS}, 0)`);
      const others = await tx.any(sql.type(streamRow)`SELECT name, subjects FROM cairn_bus.streams WHERE name <> ${name}`);
      for (const other of others) {
        const clash = other.subjects.find((s) => wanted.some((w) => subjectFiltersOverlap(s, w)));
        if (clash !== undefined) throw new Error(`subjects of stream ${name} overlap with stream ${other.name} (${clash})`);
      }
      await tx.query(sql.unsafe`
        INSERT INTO cairn_bus.streams (name, subjects) VALUES (${name}, ${sql.array(wanted, 'text')})
        ON CONFLICT (name) DO UPDATE SET subjects = EXCLUDED.subjects`);
    });
    await loadStreams();
    ownStreams.set(name, kind);
    for (const waker of waitingForStreams) waker.wake();
  }

  /**
   * Drops the stream's messages past its limits, oldest first, as JetStream's DiscardOld does (publishing never fails
   * for a limit), with their pending deliveries: a consumer skips what left the stream. Size counts message bodies.
   */
  async function trimStream(name: string, limits: StreamLimits): Promise<number> {
    return db.pool.transaction(async (tx) => {
      // The newest message that no longer fits: it and every older one go.
      const overBytes =
        limits.maxBytes > 0
          ? await tx.maybeOneFirst(sql.type(seqRow)`
              SELECT seq FROM (
                SELECT seq, sum(octet_length(data)) OVER (ORDER BY seq DESC) AS total FROM cairn_bus.messages WHERE stream = ${name}
              ) sized WHERE total > ${limits.maxBytes} ORDER BY seq DESC LIMIT 1`)
          : null;
      const gone = await tx.anyFirst(sql.type(seqRow)`
        DELETE FROM cairn_bus.messages WHERE stream = ${name} AND (
          seq <= ${overBytes ?? 0}
          OR (${limits.maxAgeMs}::bigint > 0 AND created_at < now() - ${limits.maxAgeMs}::bigint * interval '1 millisecond'))
        RETURNING seq`);
      if (gone.length > 0) {
        await tx.query(sql.unsafe`DELETE FROM cairn_bus.pending WHERE stream = ${name} AND seq = ANY(${sql.array([...gone], 'int8')})`);
      }
      return gone.length;
    });
  }

  async function trimOwnStreams(): Promise<void> {
    for (const [name, kind] of ownStreams) {
      const limits = limitsOf(kind);
      if (limits === undefined) continue;
      try {
        const dropped = await trimStream(name, limits);
        if (dropped > 0) logger.info({ stream: name, dropped }, 'dropped messages past the stream limits');
      } catch (error) {
        logger.warn({ err: error, stream: name }, 'could not trim a stream to its limits; trying again later');
      }
    }
  }

  /** The stream's subjects, or undefined while it does not exist (binding.ts). */
  async function streamSubjects(name: string): Promise<readonly string[] | undefined> {
    const subjects = await db.pool.maybeOneFirst(sql.type(z.object({ subjects: z.array(z.string()) }))`
      SELECT subjects FROM cairn_bus.streams WHERE name = ${name}`);
    return subjects ?? undefined;
  }

  async function streamFor(subject: string): Promise<string> {
    const find = (): StreamDefinition | undefined => streams.find((s) => s.subjects.some((f) => subjectMatches(f, subject)));
    let stream = find();
    if (stream === undefined) {
      // Another process may have created it since this one last looked.
      await loadStreams();
      stream = find();
    }
    if (stream === undefined) throw new Error(`no stream captures subject "${subject}"`);
    return stream.name;
  }

  async function publish(subject: string, id: string, data: Uint8Array, headers?: BusHeaders): Promise<void> {
    assertSubject(subject);
    const storedHeaders = normalisedHeaders(headers);
    const stream = await streamFor(subject);
    const stored = await db.pool.transaction(async (tx) => {
      // The common duplicate (an outbox relay retrying) is answered without taking the stream lock.
      const known = await tx.exists(sql.unsafe`SELECT 1 FROM cairn_bus.messages WHERE stream = ${stream} AND id = ${id}`);
      if (known) return false;
      const seq = await tx.oneFirst(sql.type(z.object({ last_seq: z.number() }))`
        UPDATE cairn_bus.streams SET last_seq = last_seq + 1 WHERE name = ${stream} RETURNING last_seq`);
      const inserted = await tx.query(sql.unsafe`
        INSERT INTO cairn_bus.messages (stream, seq, subject, id, data, headers)
        VALUES (${stream}, ${seq}, ${subject}, ${id}, ${sql.binary(Buffer.from(data.buffer, data.byteOffset, data.byteLength))},
          ${Object.keys(storedHeaders).length === 0 ? null : JSON.stringify(storedHeaders)}::jsonb)
        ON CONFLICT (stream, id) DO NOTHING`);
      if (inserted.rowCount === 0) return false;
      await tx.query(sql.unsafe`SELECT pg_notify(${CHANNEL}, ${`${stream} ${subject}`})`);
      return true;
    });
    if (!stored) return;
    wakeConsumers(stream, subject);
    broadcast({ id, subject, data, headers: storedHeaders, deliveryCount: 1 });
  }

  function broadcast(message: BusMessage): void {
    for (const b of broadcasts) {
      if (!subjectMatches(b.filterSubject, message.subject)) continue;
      Promise.resolve()
        .then(() => b.handler(message))
        .catch((err: unknown) => logger.warn({ err, subject: message.subject }, 'broadcast handler failed'));
    }
  }

  async function subscribe(filterSubject: string, handler: BroadcastHandler): Promise<Subscription> {
    assertSubjectFilter(filterSubject);
    const entry = { filterSubject, handler };
    broadcasts.add(entry);
    return {
      async stop() {
        broadcasts.delete(entry);
      },
    };
  }

  async function claim(stream: string, durable: string): Promise<ClaimResult> {
    return db.pool.transaction(async (tx) => {
      await dropExhausted(tx, stream, durable);
      const again = await tx.any(sql.type(redeliveryRow)`
        UPDATE cairn_bus.pending p
        SET delivery_count = p.delivery_count + 1, available_at = now() + c.ack_wait_ms * interval '1 millisecond'
        FROM cairn_bus.consumers c
        WHERE c.stream = p.stream AND c.durable = p.durable AND (p.stream, p.durable, p.seq) IN (
          SELECT stream, durable, seq FROM cairn_bus.pending
          WHERE stream = ${stream} AND durable = ${durable} AND available_at <= now()
          ORDER BY seq LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING p.seq, p.delivery_count`);
      const counts = new Map(again.map((r) => [r.seq, r.delivery_count]));
      const room = CLAIM_BATCH - again.length;
      if (room > 0) {
        for (const seq of await claimNew(tx, stream, durable, room)) counts.set(seq, 1);
      }
      if (counts.size === 0) {
        const due = await tx.oneFirst(sql.type(dueRow)`
          SELECT ceil(extract(epoch FROM min(available_at) - clock_timestamp()) * 1000)::float8 AS due_in_ms
          FROM cairn_bus.pending WHERE stream = ${stream} AND durable = ${durable}`);
        return { messages: [], nextDueMs: due ?? undefined };
      }
      const rows = await tx.any(sql.type(messageRow)`
        SELECT seq, subject, id, data, headers FROM cairn_bus.messages
        WHERE stream = ${stream} AND seq = ANY(${sql.array([...counts.keys()], 'int8')})
        ORDER BY seq`);
      const messages = rows.map((r) => ({
        seq: r.seq,
        id: r.id,
        subject: r.subject,
        data: r.data,
        headers: r.headers ?? {},
        deliveryCount: counts.get(r.seq) ?? 1,
      }));
      return { messages, nextDueMs: undefined };
    });
  }

  /** Gives up on messages whose last allowed delivery's lease ran out, as JetStream does after max_deliver. */
  async function dropExhausted(tx: DatabaseTransactionConnection, stream: string, durable: string): Promise<void> {
    const dropped = await tx.anyFirst(sql.type(seqRow)`
      DELETE FROM cairn_bus.pending WHERE (stream, durable, seq) IN (
        SELECT p.stream, p.durable, p.seq FROM cairn_bus.pending p
        JOIN cairn_bus.consumers c ON c.stream = p.stream AND c.durable = p.durable
        WHERE p.stream = ${stream} AND p.durable = ${durable} AND c.max_deliver > 0
          AND p.delivery_count >= c.max_deliver AND p.available_at <= now()
        FOR UPDATE OF p SKIP LOCKED)
      RETURNING seq`);
    for (const seq of dropped) logger.error({ stream, durable, seq }, 'event never acknowledged within max_deliver deliveries; giving up on it');
  }

  /**
   * Hands out the next messages this durable has never seen; the consumer row lock keeps sharers apart. With
   * max_ack_pending, only as many as leave the durable's pending rows (retry-waiting ones included) within it, as
   * JetStream counts: pending rows are added only here, under that lock, so the count cannot grow meanwhile.
   */
  async function claimNew(tx: DatabaseTransactionConnection, stream: string, durable: string, batchRoom: number): Promise<number[]> {
    const consumer = await tx.one(sql.type(consumerRow)`
      SELECT delivered_seq, filter_subject, ack_wait_ms, max_ack_pending FROM cairn_bus.consumers
      WHERE stream = ${stream} AND durable = ${durable} FOR UPDATE`);
    let room = batchRoom;
    if (consumer.max_ack_pending !== null) {
      const pending = await tx.oneFirst(sql.type(countRow)`
        SELECT count(*)::int AS count FROM cairn_bus.pending WHERE stream = ${stream} AND durable = ${durable}`);
      room = Math.min(room, consumer.max_ack_pending - pending);
      if (room <= 0) return [];
    }
    // One statement, one snapshot: every message up to the last_seq it sees is visible to it.
    const candidates = await tx.any(sql.type(candidateRow)`
      SELECT s.last_seq, m.seq FROM cairn_bus.streams s
      LEFT JOIN LATERAL (
        SELECT seq FROM cairn_bus.messages
        WHERE stream = s.name AND seq > ${consumer.delivered_seq} AND seq <= s.last_seq
          AND subject ~ ${subjectFilterPattern(consumer.filter_subject)}
        ORDER BY seq LIMIT ${room}
      ) m ON true
      WHERE s.name = ${stream}`);
    const seqs = candidates.flatMap((c) => (c.seq === null ? [] : [c.seq]));
    const lastSeq = candidates[0]?.last_seq ?? consumer.delivered_seq;
    // A full batch may stop short of the end; otherwise everything up to last_seq has been looked at.
    const deliveredSeq = seqs.length === room ? seqs[seqs.length - 1] : lastSeq;
    if (seqs.length > 0) {
      await tx.query(sql.unsafe`
        INSERT INTO cairn_bus.pending (stream, durable, seq, delivery_count, available_at)
        SELECT ${stream}, ${durable}, seq, 1, now() + ${consumer.ack_wait_ms}::int * interval '1 millisecond'
        FROM unnest(${sql.array(seqs, 'int8')}) AS seq`);
    }
    if (deliveredSeq > consumer.delivered_seq) {
      await tx.query(sql.unsafe`
        UPDATE cairn_bus.consumers SET delivered_seq = ${deliveredSeq} WHERE stream = ${stream} AND durable = ${durable}`);
    }
    return seqs;
  }

  async function consume(consumeOptions: ConsumeOptions): Promise<Subscription> {
    const { stream, durable, filterSubject } = consumeOptions;
    assertSubjectFilter(filterSubject);
    return bindWhenReady({
      stream,
      durable,
      filterSubject,
      logger,
      streamSubjects,
      bind: () => bindConsumer(consumeOptions),
      waiting: waitingForStreams,
      subscriptions,
    });
  }

  /** Creates (or updates) the durable on the existing stream and starts claiming. */
  async function bindConsumer(consumeOptions: ConsumeOptions): Promise<Subscription> {
    const { stream, durable, filterSubject, handler } = consumeOptions;
    const ackWaitMs = consumeOptions.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const maxDeliver = consumeOptions.maxDeliver ?? -1;
    const maxAckPending = consumeOptions.maxAckPending ?? null;
    // Below 1 nothing could ever be handed out.
    if (maxAckPending !== null && !(Number.isInteger(maxAckPending) && maxAckPending > 0)) {
      throw new Error(`maxAckPending must be a positive integer, got ${maxAckPending}`);
    }
    // Create-or-update, like JetStream: every process consuming the durable states the same config. An unset
    // maxAckPending leaves the durable's as it is, as the NATS adapter does.
    const created = await db.pool.maybeOne(sql.unsafe`
      INSERT INTO cairn_bus.consumers (stream, durable, filter_subject, ack_wait_ms, max_deliver, max_ack_pending)
      SELECT name, ${durable}, ${filterSubject}, ${ackWaitMs}, ${maxDeliver}, ${maxAckPending}::int FROM cairn_bus.streams WHERE name = ${stream}
      ON CONFLICT (stream, durable) DO UPDATE
      SET filter_subject = EXCLUDED.filter_subject, ack_wait_ms = EXCLUDED.ack_wait_ms, max_deliver = EXCLUDED.max_deliver,
          max_ack_pending = coalesce(EXCLUDED.max_ack_pending, cairn_bus.consumers.max_ack_pending)
      RETURNING durable`);
    if (created === null) throw new Error(`stream ${stream} does not exist`);

    const log = logger.child({ stream, durable });
    const waker = createWaker();
    // Lag as JetStream counts it: matching messages past the delivered position + unacknowledged deliveries.
    const metrics = consumerMetrics(stream, durable, () =>
      db.pool.oneFirst(sql.type(lagRow)`
        SELECT (
          (SELECT count(*) FROM cairn_bus.messages m
           WHERE m.stream = c.stream AND m.seq > c.delivered_seq AND m.subject ~ ${subjectFilterPattern(filterSubject)})
          + (SELECT count(*) FROM cairn_bus.pending p WHERE p.stream = c.stream AND p.durable = c.durable)
        )::int AS lag
        FROM cairn_bus.consumers c WHERE c.stream = ${stream} AND c.durable = ${durable}`),
    );
    let stopping = false;

    async function settle(what: string, query: QuerySqlToken): Promise<void> {
      try {
        await db.pool.query(query);
      } catch (error) {
        // The message comes back when its lease runs out.
        log.warn({ err: error }, `could not ${what} message`);
      }
    }

    async function handle(message: Claimed): Promise<void> {
      const where = sql.fragment`stream = ${stream} AND durable = ${durable} AND seq = ${message.seq}`;
      const mine = sql.fragment`${where} AND delivery_count = ${message.deliveryCount}`;
      try {
        await handler({ id: message.id, subject: message.subject, data: message.data, headers: message.headers, deliveryCount: message.deliveryCount });
      } catch (error) {
        logHandlerFailure(log, error, message, maxDeliver);
        const last = isLastDelivery(message.deliveryCount, maxDeliver);
        metrics.handled(last ? 'dropped' : 'retry');
        // Only while still the holder: a message whose lease ran out may be with another consumer now.
        if (last) await settle('drop', sql.unsafe`DELETE FROM cairn_bus.pending WHERE ${mine}`);
        else {
          await settle('nak', sql.unsafe`
            UPDATE cairn_bus.pending SET available_at = now() + ${redeliveryDelayMs(message.deliveryCount)}::int * interval '1 millisecond'
            WHERE ${mine}`);
        }
        return;
      }
      await settle('ack', sql.unsafe`DELETE FROM cairn_bus.pending WHERE ${where}`);
      metrics.handled('ok');
    }

    /** Claimed but never started (stopping): available to the other consumers at once. */
    async function release(messages: Claimed[]): Promise<void> {
      await settle('release', sql.unsafe`
        UPDATE cairn_bus.pending p SET available_at = now()
        FROM unnest(${sql.array(messages.map((m) => m.seq), 'int8')}, ${sql.array(messages.map((m) => m.deliveryCount), 'int4')}) AS r(seq, delivery_count)
        WHERE p.stream = ${stream} AND p.durable = ${durable} AND p.seq = r.seq AND p.delivery_count = r.delivery_count`);
    }

    async function run(): Promise<void> {
      let failures = 0;
      while (!stopping) {
        let batch: ClaimResult;
        try {
          batch = await claim(stream, durable);
          failures = 0;
        } catch (error) {
          failures += 1;
          log.warn({ err: error }, 'could not fetch messages; retrying');
          await waker.sleep(Math.min(100 * 2 ** failures, MAX_ERROR_BACKOFF_MS));
          continue;
        }
        for (const [index, message] of batch.messages.entries()) {
          if (stopping) {
            await release(batch.messages.slice(index));
            break;
          }
          await handle(message);
        }
        if (batch.messages.length === 0 && !stopping) {
          // At least a moment: a message already due but skipped is being taken by a sharer right now.
          await waker.sleep(Math.max(MIN_SLEEP_MS, Math.min(batch.nextDueMs ?? pollMs, pollMs)));
        }
      }
    }

    const local: LocalConsumer = { stream, filterSubject, waker };
    consumers.add(local);
    const loop = run();
    return {
      async stop() {
        if (stopping) return;
        stopping = true;
        waker.wake();
        await Promise.race([loop, delay(ackWaitMs)]);
        consumers.delete(local);
        metrics.close();
      },
    };
  }

  /** The limits of this instance's streams of `kind`; undefined when it keeps them whole. */
  function limitsOf(kind: StreamKind): StreamLimits | undefined {
    const limits = kind === 'events' ? options.eventStreamLimits : options.streamLimits;
    return limits !== undefined && (limits.maxAgeMs > 0 || limits.maxBytes > 0) ? limits : undefined;
  }
  const trimming =
    limitsOf('internal') !== undefined || limitsOf('events') !== undefined
      ? setInterval(() => void trimOwnStreams(), options.trimIntervalMs ?? 60_000).unref()
      : undefined;

  async function close(): Promise<void> {
    clearInterval(trimming);
    await Promise.all([...subscriptions].map((s) => s.stop()));
    await listener.close();
    await db.close();
  }

  try {
    await loadStreams();
  } catch (error) {
    clearInterval(trimming);
    await db.close();
    throw error;
  }
  const listener = listenForNotifications({
    url: options.url,
    channel: CHANNEL,
    logger,
    onNotify: (payload) => {
      const [stream, subject] = payload?.split(' ') ?? [];
      wakeConsumers(stream, subject);
    },
  });
  return { ensureStream, publish, consume, subscribe, close };
}
