/**
 * Every Cairn metric: name, help and labels are defined here and nowhere else, so the same thing is called
 * the same in every service. Each getter gets-or-creates the metric in the process registry.
 *
 * Labels stay bounded: an HTTP route is its registered template (`/api/v1/users/{username}`, never the raw
 * path), a gRPC method is a method of a compiled-in service, a schema/stream/durable is fixed per service.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { counter, gauge, histogram } from './registry';
import { collectSources } from './scrape';

/** Latency buckets in seconds, from a cached 1 ms RPC to a 10 s timeout. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The `route` label of a request that matched no route (unknown paths, 404s). */
export const UNMATCHED_ROUTE = 'unmatched';

type HttpLabel = 'method' | 'route' | 'status';
type RpcLabel = 'grpc_service' | 'grpc_method' | 'grpc_code';
type RpcTimingLabel = 'grpc_service' | 'grpc_method';

export const METRIC_NAMES = {
  httpRequests: 'cairn_http_requests_total',
  httpDuration: 'cairn_http_request_duration_seconds',
  rpcServerHandled: 'cairn_rpc_server_handled_total',
  rpcServerHandling: 'cairn_rpc_server_handling_seconds',
  rpcClientHandled: 'cairn_rpc_client_handled_total',
  rpcClientHandling: 'cairn_rpc_client_handling_seconds',
  breakerState: 'cairn_rpc_client_breaker_state',
  outboxPending: 'cairn_outbox_pending_events',
  outboxLag: 'cairn_outbox_lag_seconds',
  outboxPublished: 'cairn_outbox_published_total',
  consumerPending: 'cairn_bus_consumer_pending_messages',
  busHandled: 'cairn_bus_handled_total',
} as const;

export function httpRequestsTotal(): Counter<HttpLabel> {
  return counter({
    name: METRIC_NAMES.httpRequests,
    help: 'HTTP requests answered, by method, route template and status (499: the client went away first).',
    labelNames: ['method', 'route', 'status'],
  });
}

export function httpRequestDuration(): Histogram<HttpLabel> {
  return histogram({
    name: METRIC_NAMES.httpDuration,
    help: 'Time from receiving an HTTP request to the end of its answer, in seconds.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
  });
}

export function rpcServerHandled(): Counter<RpcLabel> {
  return counter({
    name: METRIC_NAMES.rpcServerHandled,
    help: 'RPCs a server completed, by gRPC service, method and status code.',
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'],
  });
}

export function rpcServerHandling(): Histogram<RpcTimingLabel> {
  return histogram({
    name: METRIC_NAMES.rpcServerHandling,
    help: 'Time a server took to handle an RPC, in seconds.',
    labelNames: ['grpc_service', 'grpc_method'],
    buckets: LATENCY_BUCKETS,
  });
}

export function rpcClientHandled(): Counter<RpcLabel> {
  return counter({
    name: METRIC_NAMES.rpcClientHandled,
    help: 'RPCs a client completed, by gRPC service, method and status code (an open circuit counts as UNAVAILABLE).',
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'],
  });
}

export function rpcClientHandling(): Histogram<RpcTimingLabel> {
  return histogram({
    name: METRIC_NAMES.rpcClientHandling,
    help: 'Time from starting an RPC to its answer as the client saw it, in seconds.',
    labelNames: ['grpc_service', 'grpc_method'],
    buckets: LATENCY_BUCKETS,
  });
}

export function rpcClientBreakerState(): Gauge<'client'> {
  return gauge({
    name: METRIC_NAMES.breakerState,
    help: 'Circuit breaker of the clients of a gRPC service: 0 closed, 1 half-open, 2 open.',
    labelNames: ['client'],
  });
}

export function outboxPendingEvents(): Gauge<'schema'> {
  return gauge({
    name: METRIC_NAMES.outboxPending,
    help: 'Events in the outbox of a service schema that are not published yet.',
    labelNames: ['schema'],
    collect: collectSources(METRIC_NAMES.outboxPending),
  });
}

export function outboxLagSeconds(): Gauge<'schema'> {
  return gauge({
    name: METRIC_NAMES.outboxLag,
    help: 'Age of the oldest unpublished outbox event of a service schema, in seconds (0 when none waits).',
    labelNames: ['schema'],
    collect: collectSources(METRIC_NAMES.outboxLag),
  });
}

export function outboxPublishedTotal(): Counter<'schema'> {
  return counter({
    name: METRIC_NAMES.outboxPublished,
    help: 'Outbox events the relay published to the bus.',
    labelNames: ['schema'],
  });
}

export function busConsumerPendingMessages(): Gauge<'stream' | 'durable'> {
  return gauge({
    name: METRIC_NAMES.consumerPending,
    help: 'Consumer lag: messages of the stream the durable consumer has not acknowledged yet (not yet delivered + awaiting ack).',
    labelNames: ['stream', 'durable'],
    collect: collectSources(METRIC_NAMES.consumerPending),
  });
}

export function busHandledTotal(): Counter<'stream' | 'durable' | 'result'> {
  return counter({
    name: METRIC_NAMES.busHandled,
    help: 'Event deliveries a consumer handled: result ok (acknowledged), retry (failed, redelivered later) or dropped (failed on its last allowed delivery).',
    labelNames: ['stream', 'durable', 'result'],
  });
}
