/**
 * The one Prometheus registry of the process. Several services may run in one process (the supervisor's
 * single-process mode), so every metric is got-or-created by name: the second service to ask for
 * `cairn_rpc_server_handled_total` gets the first one's counter instead of a "already registered" error.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prefix of every Cairn metric, the Node.js process metrics included. */
export const METRIC_PREFIX = 'cairn_';

let registry: Registry | undefined;

/** The process's registry; the first call also starts collecting Node.js's own metrics (`cairn_process_*`, `cairn_nodejs_*`). */
export function metricsRegistry(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  }
  return registry;
}

type MetricClass = typeof Counter | typeof Gauge | typeof Histogram;

function getOrCreate<M>(name: string, kind: MetricClass, create: (registers: Registry[]) => M): M {
  const existing = metricsRegistry().getSingleMetric(name);
  if (existing === undefined) return create([metricsRegistry()]);
  if (!(existing instanceof kind)) throw new Error(`metric ${name} is already registered as another type`);
  return existing as M;
}

export interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

export function counter<L extends string>(spec: MetricSpec<L>): Counter<L> {
  return getOrCreate(spec.name, Counter, (registers) => new Counter<L>({ ...spec, registers }));
}

export function histogram<L extends string>(spec: MetricSpec<L> & { buckets: number[] }): Histogram<L> {
  return getOrCreate(spec.name, Histogram, (registers) => new Histogram<L>({ ...spec, registers }));
}

/** `collect` (optional) runs at every scrape, before the values are read. */
export function gauge<L extends string>(spec: MetricSpec<L> & { collect?: () => Promise<void> }): Gauge<L> {
  return getOrCreate(spec.name, Gauge, (registers) => new Gauge<L>({ ...spec, registers }));
}
