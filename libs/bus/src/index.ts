/**
 * @cairn/bus: events between services. Services write events to their outbox in the transaction of the
 * change (`enqueueEvent`), a relay publishes them (`startOutboxRelay`) to the bus — NATS JetStream
 * (`connectNatsBus`) or, in embedded mode, PostgreSQL (`createInProcessBus`), which keep the same
 * contract — and consumers apply each event once (`processOnce`).
 */
export type { BroadcastHandler, Bus, BusHandler, BusHeaders, BusMessage, ConsumeOptions, StreamKind, StreamLimits, Subscription } from './types';
export { DEFAULT_BUS_PREFIX, assertBusPrefix, busNames, prefixedBus, type BusNames } from './namespace';
export { connectNatsBus, connectionOptions as natsConnectionOptions, provisionJetStream, type NatsBusOptions } from './nats-bus';
export { createInProcessBus, type InProcessBusOptions } from './in-process-bus';
export { configuredStreamLimits, openConfiguredBus, type OpenBusOptions } from './open';
export { prepareOutbox, enqueueEvent, type OutboxEvent } from './outbox';
export { RELAY_RETRY_HORIZON_MS, startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './relay';
export { assertHeaders } from './headers';
export { claimVersion, processOnce } from './idempotency';
export { applyOnce, type ApplyOnceOptions } from './apply-once';
export { uuidv7 } from './uuidv7';
export { uuidFromName } from './uuid-from-name';
export { encodeEvent, decodeEvent, type EventEncoder, type EventDecoder } from './codec';
export { subjectMatches } from './subjects';
export {
  assertBusUsage,
  guardBroadcasts,
  guardBus,
  natsInboxPrefix,
  natsJetStreamAdminPermissions,
  natsPermissions,
  natsStreamReaderPermissions,
  type BusUsage,
  type ConsumerSpec,
  type NatsPermissions,
  type StreamSpec,
} from './usage';
