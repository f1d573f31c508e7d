/** The bus contract both adapters (NATS JetStream, in-process on PostgreSQL) implement. */

/** One stored event as a consumer sees it. */
export interface BusMessage {
  /** Event id (UUIDv7), the publisher's deduplication key. */
  id: string;
  subject: string;
  data: Uint8Array;
  /** 1 on first delivery, grows with every redelivery. */
  deliveryCount: number;
}

export type BusHandler = (message: BusMessage) => Promise<void>;

export interface ConsumeOptions {
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
}

/** Handler of a broadcast subscription; a throw is logged and dropped (nothing is redelivered). */
export type BroadcastHandler = (message: BusMessage) => void | Promise<void>;

export interface Subscription {
  /** Stops fetching, lets the handler in flight finish (at most ackWaitMs) and hands back unstarted messages. */
  stop(): Promise<void>;
}

export interface Bus {
  /** Creates or updates a stream (one per owning service) capturing `subjects`. */
  ensureStream(name: string, subjects: string[]): Promise<void>;
  /** Stores one message; `id` is the deduplication key. Resolves once stored, rejects if it cannot be. */
  publish(subject: string, id: string, data: Uint8Array): Promise<void>;
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
