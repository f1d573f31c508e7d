/**
 * @cairn/metrics: Prometheus metrics (prom-client). One registry per process (`metricsRegistry`), the
 * catalogue of every Cairn metric (`catalogue.ts`), cheap recorders for instrumented code, and the
 * `/metrics` server each process runs when `[metrics] ENABLED` is on.
 */
export { METRIC_PREFIX, metricsRegistry } from './registry';
export * from './catalogue';
export {
  BreakerState,
  type BreakerStateValue,
  type BreakerTracker,
  type BusHandledResult,
  type ConsumerMetrics,
  type HttpRouteRecorder,
  type OutboxBacklog,
  type OutboxMetrics,
  type RpcRecorder,
  consumerMetrics,
  httpRouteRecorder,
  outboxMetrics,
  rpcClientRecorder,
  rpcServerRecorder,
  splitMethodPath,
  trackBreaker,
} from './recorders';
export { METRICS_PATH, type MetricsServer, type MetricsServerOptions, startMetricsServer } from './server';
export { metricValue } from './read';
