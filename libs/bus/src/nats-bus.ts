import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
  jetstreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import fs from 'node:fs';
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  headers as natsHeaders,
  type MsgHdrs,
  nanos,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';
import type { BusAuth } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { consumerMetrics } from '@cairn/metrics';
import { bindWhenReady } from './binding';
import { busNames, prefixedBus } from './namespace';
import { assertSubject, assertSubjectFilter } from './subjects';
import { delay, type Waker } from './wake';
import { DEFAULT_ACK_WAIT_MS, isLastDelivery, logHandlerFailure, redeliveryDelayMs } from './delivery';
import { assertHeaders, isStrayPublicEvent, MSG_ID_HEADER } from './headers';
import { RELAY_RETRY_HORIZON_MS } from './relay';
import type { BroadcastHandler, Bus, BusHeaders, BusMessage, ConsumeOptions, StreamKind, StreamLimits, Subscription } from './types';
import { assertBusUsage, type BusUsage, natsInboxPrefix } from './usage';

export interface NatsBusOptions {
  /** `nats://host:port`, several separated by commas. */
  url: string;
  logger: Logger;
  /** Connection name shown by the server; default `cairn`. */
  name?: string;
  /** How long publish and JetStream API calls wait for the server; default 5000 ms. */
  requestTimeoutMs?: number;
  /** `[bus]` credentials; default none. */
  auth?: BusAuth;
  /** `[bus] PREFIX`: the names the services use are this installation's under it (namespace.ts); default none (names as given). */
  prefix?: string;
  /**
   * `[bus] STREAM_MAX_AGE`, `STREAM_MAX_BYTES` and `STREAM_REPLICAS`, set on every `internal` stream ensureStream
   * defines; default none (unlimited, one replica).
   */
  streamLimits?: StreamLimits;
  /** `[bus] EVENTS_MAX_AGE`, `EVENTS_MAX_BYTES` and `STREAM_REPLICAS`, for the `events` streams; default none. */
  eventStreamLimits?: StreamLimits;
}

/**
 * The authenticator for `[bus]` credentials. Seed and creds files are read at every (re)connect, so a rotated
 * Secret is picked up without a restart; an unreadable file fails the connect naming the file.
 */
function authenticator(auth: BusAuth): Authenticator | undefined {
  const read = (file: string): Uint8Array => {
    try {
      return fs.readFileSync(file);
    } catch (error) {
      throw new Error(`cannot read NATS credentials file ${file}: ${(error as Error).message}`, { cause: error });
    }
  };
  switch (auth.kind) {
    case 'none':
      return undefined;
    case 'password':
      return usernamePasswordAuthenticator(auth.user, auth.password);
    case 'token':
      return tokenAuthenticator(auth.token);
    case 'nkey':
      // nkeyAuthenticator wants the bare seed; the file may end with a line break.
      return nkeyAuthenticator(() => new TextEncoder().encode(new TextDecoder().decode(read(auth.seedFile)).trim()));
    case 'creds':
      return credsAuthenticator(() => read(auth.credsFile));
  }
}

/** Connection options both connects share: servers, credentials and, for a named user, its own inbox prefix. */
export function connectionOptions(options: Omit<NatsBusOptions, 'logger'>, defaultName: string, timeout: number) {
  const auth = options.auth ?? { kind: 'none' };
  return {
    servers: options.url.split(',').map((s) => s.trim()),
    name: options.name ?? defaultName,
    timeout,
    authenticator: authenticator(auth),
    // The generated permissions let a user read only `_INBOX_<user>.>` (usage.ts natsInboxPrefix).
    inboxPrefix: auth.kind === 'password' ? natsInboxPrefix(auth.user) : undefined,
  };
}

/** Messages one consumer holds ahead of its handler; small, since their ack wait is already running. */
const PULL_BATCH = 10;
const DRAIN_TIMEOUT_MS = 5_000;

type Jsm = Awaited<ReturnType<typeof jetstreamManager>>;

const NO_LIMITS: StreamLimits = { maxAgeMs: 0, maxBytes: 0 };

/** The limits of a stream of `kind` among the bus's options. */
function limitsOf(options: Pick<NatsBusOptions, 'streamLimits' | 'eventStreamLimits'>, kind: StreamKind = 'internal'): StreamLimits {
  return (kind === 'events' ? options.eventStreamLimits : options.streamLimits) ?? NO_LIMITS;
}

/** The message's headers but the id, as BusMessage.headers (a repeated header: its first value). */
function receivedHeaders(headers: MsgHdrs | undefined): BusHeaders {
  if (headers === undefined) return {};
  return Object.fromEntries(headers.keys().filter((name) => name !== MSG_ID_HEADER).map((name) => [name, headers.get(name)]));
}

const isStreamNotFound = (error: unknown): boolean => error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;

/**
 * The producer's side: creates the stream, or updates its subjects, limits, replicas and duplicate window when they
 * differ; a stream that is as wanted is only looked at. Limits discard the oldest messages (JetStream's default
 * DiscardOld), so publishing never fails on them; JetStream writes "no limit" as -1 for bytes and 0 for age. The
 * duplicate window is the outbox relay's retry horizon (relay.ts RELAY_RETRY_HORIZON_MS), shortened to the stream's
 * max age when that is shorter (JetStream refuses a window longer than the age).
 */
async function ensureStreamWith(jsm: Jsm, name: string, subjects: string[], limits: StreamLimits): Promise<void> {
  subjects.forEach(assertSubjectFilter);
  const duplicateWindowMs = limits.maxAgeMs > 0 ? Math.min(RELAY_RETRY_HORIZON_MS, limits.maxAgeMs) : RELAY_RETRY_HORIZON_MS;
  const wanted = {
    subjects: [...new Set(subjects)].sort(),
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes > 0 ? limits.maxBytes : -1,
    num_replicas: limits.replicas ?? 1,
    duplicate_window: nanos(duplicateWindowMs),
  };
  try {
    const have = (await jsm.streams.info(name)).config;
    const same =
      [...(have.subjects ?? [])].sort().join('\n') === wanted.subjects.join('\n') &&
      have.max_age === wanted.max_age &&
      have.max_bytes === wanted.max_bytes &&
      have.num_replicas === wanted.num_replicas &&
      have.duplicate_window === wanted.duplicate_window;
    if (!same) await jsm.streams.update(name, wanted);
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    // Adding with an identical config is idempotent on the server, so concurrent starts are safe.
    await jsm.streams.add({ name, ...wanted, storage: StorageType.File });
  }
}

/** The stream's subjects, or undefined while it does not exist (binding.ts). */
async function streamSubjectsWith(jsm: Jsm, name: string): Promise<readonly string[] | undefined> {
  try {
    return (await jsm.streams.info(name)).config.subjects ?? [];
  } catch (error) {
    if (isStreamNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The durable pull consumer `consume` binds to (and provisionJetStream creates). Without `maxAckPending` the field is
 * left out: JetStream's default applies and durables created before it existed stay as they are.
 */
function consumerConfig(durable: string, filterSubject: string, ackWaitMs: number, maxDeliver: number, maxAckPending?: number) {
  return {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    ack_wait: nanos(ackWaitMs),
    max_deliver: maxDeliver,
    ...(maxAckPending === undefined ? {} : { max_ack_pending: maxAckPending }),
  };
}

/**
 * Creates or updates the durable unless it already has this config. Looking first means a service whose NATS user may
 * not create consumers (the generated permissions: a consumer's config could redirect it as a push consumer onto
 * another service's subjects) runs on the durables provisionJetStream made.
 */
async function ensureConsumerWith(jsm: Jsm, stream: string, config: ReturnType<typeof consumerConfig>): Promise<void> {
  try {
    const have = (await jsm.consumers.info(stream, config.durable_name)).config;
    const same =
      have.deliver_subject === undefined &&
      have.ack_policy === config.ack_policy &&
      have.deliver_policy === config.deliver_policy &&
      have.filter_subject === config.filter_subject &&
      have.ack_wait === config.ack_wait &&
      (have.max_deliver ?? -1) === config.max_deliver &&
      (config.max_ack_pending === undefined || have.max_ack_pending === config.max_ack_pending);
    if (same) return;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound)) throw error;
  }
  // Create-or-update: every process consuming the durable states the same config.
  await jsm.consumers.add(stream, config);
}

/**
 * What the services' NATS users may not do themselves (deploy/k8s/nats-values.yaml): create the streams (with their
 * limits) and durable consumers of every BusUsage, under `options.prefix` (default `cairn`), as a NATS user with the
 * JetStream API (`npm run nats-config -- provision`). Idempotent.
 */
export async function provisionJetStream(options: Omit<NatsBusOptions, 'logger'>, usages: readonly BusUsage[]): Promise<void> {
  const timeout = options.requestTimeoutMs ?? 5_000;
  const names = busNames(options.prefix);
  const nc = await connect(connectionOptions(options, 'cairn-provision', timeout));
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    for (const usage of usages) {
      assertBusUsage(usage);
      for (const owns of usage.owns ?? []) {
        await ensureStreamWith(jsm, names.stream(owns.name), owns.subjects.map(names.subject), limitsOf(options, owns.kind));
      }
    }
    for (const usage of usages) {
      for (const consumer of usage.consumers) {
        const config = consumerConfig(
          names.durable(consumer.durable),
          names.subject(consumer.filterSubject),
          consumer.ackWaitMs ?? DEFAULT_ACK_WAIT_MS,
          consumer.maxDeliver ?? -1,
          consumer.maxAckPending,
        );
        await ensureConsumerWith(jsm, names.stream(consumer.stream), config);
      }
    }
  } finally {
    await nc.close();
  }
}

/**
 * The production bus: JetStream streams (file storage, dedup by message id, the configured limits) and durable pull
 * consumers with explicit acks. The connection reconnects forever; while the server is away, publish rejects
 * after `requestTimeoutMs` so the outbox relay keeps the rows and retries. With `prefix`, names are namespaced.
 */
export async function connectNatsBus(options: NatsBusOptions): Promise<Bus> {
  const bus = await connectRawNatsBus(options);
  return options.prefix === undefined ? bus : prefixedBus(bus, options.prefix);
}

async function connectRawNatsBus(options: NatsBusOptions): Promise<Bus> {
  const { logger } = options;
  const timeout = options.requestTimeoutMs ?? 5_000;
  const nc = await connect({ ...connectionOptions(options, 'cairn', timeout), maxReconnectAttempts: -1 });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'error') logger.warn({ nats_status: status.type }, 'nats connection lost');
      else if (status.type === 'reconnect') logger.info({ nats_status: status.type }, 'nats reconnected');
    }
  })();
  const jsm = await jetstreamManager(nc, { timeout });
  const js = jsm.jetstream();
  const subscriptions = new Set<Subscription>();
  const waitingForStreams = new Set<Waker>();

  async function ensureStream(name: string, subjects: string[], kind?: StreamKind): Promise<void> {
    await ensureStreamWith(jsm, name, subjects, limitsOf(options, kind));
    for (const waker of waitingForStreams) waker.wake();
  }

  async function publish(subject: string, id: string, data: Uint8Array, headers?: BusHeaders): Promise<void> {
    assertSubject(subject);
    assertHeaders(headers);
    let sent: MsgHdrs | undefined;
    if (headers !== undefined && Object.keys(headers).length > 0) {
      sent = natsHeaders();
      for (const [name, value] of Object.entries(headers)) sent.set(name, value);
    }
    // The client adds Nats-Msg-Id to these headers.
    await js.publish(subject, data, { msgID: id, timeout, headers: sent });
  }

  async function consume(consumeOptions: ConsumeOptions): Promise<Subscription> {
    const { stream, durable, filterSubject } = consumeOptions;
    assertSubjectFilter(filterSubject);
    return bindWhenReady({
      stream,
      durable,
      filterSubject,
      logger,
      streamSubjects: (name) => streamSubjectsWith(jsm, name),
      bind: () => bindConsumer(consumeOptions),
      waiting: waitingForStreams,
      subscriptions,
    });
  }

  /** Creates (or checks) the durable on the existing stream and starts pulling. */
  async function bindConsumer(consumeOptions: ConsumeOptions): Promise<Subscription> {
    const { stream, durable, filterSubject, handler } = consumeOptions;
    const ackWaitMs = consumeOptions.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const maxDeliver = consumeOptions.maxDeliver ?? -1;
    await ensureConsumerWith(jsm, stream, consumerConfig(durable, filterSubject, ackWaitMs, maxDeliver, consumeOptions.maxAckPending));
    const consumer = await js.consumers.get(stream, durable);
    const messages = await consumer.consume({ max_messages: PULL_BATCH });
    const log = logger.child({ stream, durable });
    // Lag as JetStream counts it: not yet delivered + delivered and not acknowledged.
    const metrics = consumerMetrics(stream, durable, async () => {
      const info = await consumer.info();
      return info.num_pending + info.num_ack_pending;
    });
    let stopping = false;

    void (async () => {
      for await (const status of messages.status()) {
        if (status.type === 'consumer_deleted' || status.type === 'consumer_not_found' || status.type === 'stream_not_found') {
          log.warn({ nats_status: status.type }, 'consumer unavailable');
        }
      }
    })();

    async function handle(msg: JsMsg): Promise<void> {
      const message: BusMessage = {
        id: msg.headers?.get(MSG_ID_HEADER) ?? '',
        subject: msg.subject,
        data: msg.data,
        headers: receivedHeaders(msg.headers),
        deliveryCount: msg.info.deliveryCount,
      };
      if (isStrayPublicEvent(filterSubject, message.headers ?? {})) {
        log.warn({ subject: message.subject, event_id: message.id }, 'dropping a public event delivered onto an internal subject');
        settle(() => msg.ack());
        metrics.handled('dropped');
        return;
      }
      try {
        await handler(message);
        settle(() => msg.ack());
        metrics.handled('ok');
      } catch (error) {
        logHandlerFailure(log, error, message, maxDeliver);
        settle(() => msg.nak(redeliveryDelayMs(message.deliveryCount)));
        metrics.handled(isLastDelivery(message.deliveryCount, maxDeliver) ? 'dropped' : 'retry');
      }
    }

    // An ack after the connection closed cannot reach the server; the message simply comes back.
    function settle(action: () => void): void {
      try {
        action();
      } catch (error) {
        log.warn({ err: error }, 'could not settle message');
      }
    }

    const loop = (async () => {
      try {
        for await (const msg of messages) {
          // Messages already pulled when stop() began go back at once instead of waiting out ack_wait.
          if (stopping) settle(() => msg.nak());
          else await handle(msg);
        }
      } catch (error) {
        log.error({ err: error }, 'consumer stopped on error');
      }
    })();

    return {
      async stop() {
        if (stopping) return;
        stopping = true;
        void messages.close().catch(() => undefined);
        await Promise.race([loop, delay(ackWaitMs)]);
        metrics.close();
      },
    };
  }

  async function subscribe(filterSubject: string, handler: BroadcastHandler): Promise<Subscription> {
    assertSubjectFilter(filterSubject);
    // A core subscription sees JetStream publishes too, on every connected process.
    const sub = nc.subscribe(filterSubject, {
      callback: (error, msg) => {
        if (error !== null) {
          logger.warn({ err: error, subject: filterSubject }, 'broadcast subscription error');
          return;
        }
        const message: BusMessage = {
          id: msg.headers?.get(MSG_ID_HEADER) ?? '',
          subject: msg.subject,
          data: msg.data,
          headers: receivedHeaders(msg.headers),
          deliveryCount: 1,
        };
        if (isStrayPublicEvent(filterSubject, message.headers ?? {})) {
          logger.warn({ subject: message.subject }, 'dropping a public event delivered onto an internal subject');
          return;
        }
        Promise.resolve()
          .then(() => handler(message))
          .catch((err: unknown) => logger.warn({ err, subject: msg.subject }, 'broadcast handler failed'));
      },
    });
    const subscription: Subscription = {
      async stop() {
        subscriptions.delete(subscription);
        if (!sub.isClosed()) sub.unsubscribe();
      },
    };
    subscriptions.add(subscription);
    // The server has the interest once a round trip after SUB returned: only then does the subscription see "every
    // message published from now on", also from other connections (without it a publish right after could miss it).
    await nc.flush();
    return subscription;
  }

  async function close(): Promise<void> {
    await Promise.all([...subscriptions].map((s) => s.stop()));
    if (nc.isClosed()) return;
    await Promise.race([nc.drain().catch(() => undefined), delay(DRAIN_TIMEOUT_MS)]);
    if (!nc.isClosed()) await nc.close();
  }

  return { ensureStream, publish, consume, subscribe, close };
}
