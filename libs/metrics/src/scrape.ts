/**
 * Gauges whose values are read when Prometheus scrapes, not kept up to date on a hot path: the outbox
 * backlog (a database query) and consumer lag (a NATS request). Each source is refreshed at most once per
 * `cacheMs`, however many of its gauges a scrape reads and however often scrapes come, and a source that
 * does not answer within 2 s does not hold up the scrape: it counts as failed. A source that fails has its
 * series removed, so a stale value never looks current.
 */
import type { Gauge } from 'prom-client';

const DEFAULT_CACHE_MS = 1_000;
const DEFAULT_TIMEOUT_MS = 2_000;

interface Source {
  refresh(): Promise<void>;
}

/** Sources by the name of a gauge they set. */
const sourcesByMetric = new Map<string, Set<Source>>();

/** The `collect` of a scrape-time gauge named `metric`. */
export function collectSources(metric: string): () => Promise<void> {
  return async () => {
    const sources = sourcesByMetric.get(metric);
    if (sources === undefined || sources.size === 0) return;
    await Promise.all([...sources].map((source) => source.refresh()));
  };
}

/** `promise`, or a rejection once `ms` have passed. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ScrapeSourceOptions<L extends string> {
  /** The gauges `read` sets, each with its metric name. */
  gauges: ReadonlyArray<{ name: string; gauge: Gauge<L> }>;
  /** The series of this source. */
  labels: Readonly<Record<L, string>>;
  /** One value per gauge, in the order of `gauges`. */
  read(): Promise<readonly number[]>;
  cacheMs?: number;
}

/** Registers a source; the returned function unregisters it and removes its series. */
export function addScrapeSource<L extends string>(options: ScrapeSourceOptions<L>): () => void {
  const { gauges, labels } = options;
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  let inFlight: Promise<void> | undefined;
  let refreshedAt = -Infinity;
  let removed = false;
  const removeSeries = () => {
    for (const { gauge } of gauges) gauge.remove(labels);
  };
  const source: Source = {
    refresh() {
      if (inFlight !== undefined) return inFlight;
      if (performance.now() - refreshedAt < cacheMs) return Promise.resolve();
      inFlight = withTimeout(options.read(), DEFAULT_TIMEOUT_MS)
        .then(
          (values) => {
            if (removed) return;
            gauges.forEach(({ gauge }, index) => gauge.set(labels, values[index] ?? 0));
          },
          () => {
            if (!removed) removeSeries();
          },
        )
        .finally(() => {
          refreshedAt = performance.now();
          inFlight = undefined;
        });
      return inFlight;
    },
  };
  for (const { name } of gauges) {
    let set = sourcesByMetric.get(name);
    if (set === undefined) sourcesByMetric.set(name, (set = new Set()));
    set.add(source);
  }
  return () => {
    if (removed) return;
    removed = true;
    for (const { name } of gauges) sourcesByMetric.get(name)?.delete(source);
    removeSeries();
  };
}
