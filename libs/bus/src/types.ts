/** The bus contract both adapters (NATS JetStream, in-process on PostgreSQL) implement. */

/**
 * Message headers besides the id (which travels as `Nats-Msg-Id`): the public event stream's CloudEvents attributes
 * (`ce-*`, @cairn/events). Internal events carry none.
 */
export type BusHeaders = Readonly<Record<string, string>>;

/** One stored event as a consumer sees it. */
export interface BusMessage {
  /** Event id (UUIDv7), the publisher's deduplication key. */
  id: string;
  subject: string;
  data: Uint8Array;
  /** The headers it was published with (never the id header); `{}` when none. */
  headers?: BusHeaders;
  /** 1 on first delivery, grows with every redelivery. */
  deliveryCount: number;
}

export type BusHandler = (message: BusMessage) => Promise<void>;

/**
 * What a stream keeps at most (its oldest messages go first): `[bus] STREAM_MAX_AGE` and `STREAM_MAX_BYTES` for
 * `internal` streams, `EVENTS_MAX_AGE` and `EVENTS_MAX_BYTES` for `events` ones.
 */
export interface StreamLimits {
  /** Messages older than this are dropped; 0: kept forever. */
  maxAgeMs: number;
  /** Once the stream holds more than this, its oldest messages are dropped; 0: no limit. */
  maxBytes: number;
  /** `[bus] STREAM_REPLICAS`: copies of the stream in a clustered NATS (JetStream num_replicas); default 1. */
  replicas?: number;
}

/**
 * Which limits a stream gets: `internal` (Cairn's own events: `[bus] STREAM_MAX_AGE`, `STREAM_MAX_BYTES`) or
 * `events` (the public event stream's, kept longer for outside consumers: `[bus] EVENTS_MAX_AGE`, `EVENTS_MAX_BYTES`).
 */
export type StreamKind = 'internal' | 'events';

export interface ConsumeOptions {
  /** A stream its producer defines (ensureStream); the consumer waits for it if it does not exist yet. */
  stream: string;
  /** Durable consumer name (`<consumer-service>-<purpose>`); consumers sharing it share the work. */
  durable: string;
  /** One subject filter; NATS wildcards (`*` one token, `>` the rest). */
  filterSubject: string;
  /** Resolve → ack; throw → redelivered later, after a growing delay. */
  handler: BusHandler;
  /** How long a delivered, unacknowledged message stays with its consumer before redelivery. Default 30 s. */
  ackWaitMs?: number;
  /** Deliveries before a message is given up on. Default unlimited. */
  maxDeliver?: number;
  /**
   * At most this many messages delivered and not yet acknowledged, over every process sharing the durable (JetStream
   * max_ack_pending); a failed message waiting for its redelivery still counts. 1: handled strictly in stream order,
   * failures and replicas included. Default unset: JetStream's default (1000), and an existing durable keeps its own.
   * NATS: a message nak'd with a delay keeps its slot until redelivered and acked (nats-server 2.9, the contract test
   * shows it), so the adapter only sets the field. In-process: the durable's `pending` rows are counted, those
   * waiting for their retry included.
   */
  maxAckPending?: number;
}

/** Handler of a broadcast subscription; a throw is logged and dropped (nothing is redelivered). */
export type BroadcastHandler = (message: BusMessage) => void | Promise<void>;

export interface Subscription {
  /** Stops fetching, lets the handler in flight finish (at most ackWaitMs) and hands back unstarted messages. */
  stop(): Promise<void>;
}

export interface Bus {
  /**
   * Creates or updates a stream capturing `subjects`, with the bus's StreamLimits. Only the stream's producer (the
   * service that owns it) calls this; consumers bind to the stream as the producer defined it.
   */
  ensureStream(name: string, subjects: string[], kind?: StreamKind): Promise<void>;
  /** Stores one message; `id` is the deduplication key. Resolves once stored, rejects if it cannot be. */
  publish(subject: string, id: string, data: Uint8Array, headers?: BusHeaders): Promise<void>;
  /**
   * Binds a durable consumer to its stream and starts it. While the stream does not exist, or does not capture the
   * filter yet (a producer not started or not upgraded yet), it resolves at once and binds in the background when
   * the stream is ready (binding.ts); it never creates or changes the stream.
   */
  consume(options: ConsumeOptions): Promise<Subscription>;
  /**
   * Ephemeral broadcast: every live subscriber (in every process, for NATS; in this process, for the
   * in-process bus) sees every message published from now on that matches `filterSubject`. At most once
   * and not durable: for cache invalidation and similar hints, never for work that must not be lost.
   */
  subscribe(filterSubject: string, handler: BroadcastHandler): Promise<Subscription>;
  /** Stops every consumer of this bus and releases its connections. */
  close(): Promise<void>;
}
