/**
 * What instrumented code calls on its hot paths. Each recorder binds its label values once (prom-client's
 * `labels(...)` children, cached per label combination), so recording a request or an RPC is one counter
 * increment and one histogram observation, without building label objects per call.
 */
import type { Counter, Histogram } from 'prom-client';
import {
  busConsumerPendingMessages,
  busHandledTotal,
  httpRequestDuration,
  httpRequestsTotal,
  METRIC_NAMES,
  outboxLagSeconds,
  outboxPendingEvents,
  outboxPublishedTotal,
  rpcClientBreakerState,
  rpcClientHandled,
  rpcClientHandling,
  rpcServerHandled,
  rpcServerHandling,
} from './catalogue';
import { addScrapeSource } from './scrape';

type CounterChild = Counter.Internal;
type HistogramChild = Histogram.Internal<string>;

export interface HttpRouteRecorder {
  /** One answered request: its method, status and duration in seconds. */
  record(method: string, status: number, seconds: number): void;
}

const httpRecorders = new Map<string, HttpRouteRecorder>();

/** The recorder of one route template (or UNMATCHED_ROUTE); one per route per process. */
export function httpRouteRecorder(route: string): HttpRouteRecorder {
  const known = httpRecorders.get(route);
  if (known !== undefined) return known;
  const requests = httpRequestsTotal();
  const duration = httpRequestDuration();
  const byMethod = new Map<string, Map<number, { count: CounterChild; time: HistogramChild }>>();
  const recorder: HttpRouteRecorder = {
    record(method, status, seconds) {
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
      let children = byStatus.get(status);
      if (children === undefined) {
        const labels = [method, route, String(status)];
        children = { count: requests.labels(...labels), time: duration.labels(...labels) };
        byStatus.set(status, children);
      }
      children.count.inc();
      children.time.observe(seconds);
    },
  };
  httpRecorders.set(route, recorder);
  return recorder;
}

export interface RpcRecorder {
  /** One completed RPC: its status code name (`OK`, `NOT_FOUND`, …) and duration in seconds. */
  record(code: string, seconds: number): void;
}

/** `/cairn.accounts.v1.UserService/GetUser` → [`cairn.accounts.v1.UserService`, `GetUser`]. */
export function splitMethodPath(path: string): [service: string, method: string] {
  const slash = path.lastIndexOf('/');
  return [path.slice(1, slash), path.slice(slash + 1)];
}

function rpcRecorder(path: string, handled: Counter<string>, handling: Histogram<string>): RpcRecorder {
  const [service, method] = splitMethodPath(path);
  const time = handling.labels(service, method);
  const byCode = new Map<string, CounterChild>();
  return {
    record(code, seconds) {
      let count = byCode.get(code);
      if (count === undefined) byCode.set(code, (count = handled.labels(service, method, code)));
      count.inc();
      time.observe(seconds);
    },
  };
}

/** Server side of one gRPC method (full path). */
export function rpcServerRecorder(path: string): RpcRecorder {
  return rpcRecorder(path, rpcServerHandled(), rpcServerHandling());
}

/** Client side of one gRPC method (full path). */
export function rpcClientRecorder(path: string): RpcRecorder {
  return rpcRecorder(path, rpcClientHandled(), rpcClientHandling());
}

/** Gauge values of `cairn_rpc_client_breaker_state`. */
export const BreakerState = { closed: 0, halfOpen: 1, open: 2 } as const;
export type BreakerStateValue = (typeof BreakerState)[keyof typeof BreakerState];

export interface BreakerTracker {
  set(state: BreakerStateValue): void;
  /** The client closed: its breaker no longer counts. */
  release(): void;
}

/** Live breakers per `client` label; the series shows the worst of them (two clients of one service in a process). */
const breakers = new Map<string, Map<BreakerTracker, BreakerStateValue>>();

/** Tracks one client's breaker under the `client` label (starts closed). */
export function trackBreaker(client: string): BreakerTracker {
  const gauge = rpcClientBreakerState();
  let states = breakers.get(client);
  if (states === undefined) breakers.set(client, (states = new Map()));
  const live = states;
  const publish = () => {
    if (live.size === 0) {
      breakers.delete(client);
      gauge.remove(client);
    } else {
      gauge.set({ client }, Math.max(...live.values()));
    }
  };
  const tracker: BreakerTracker = {
    set(state) {
      if (!live.has(tracker)) return;
      live.set(tracker, state);
      publish();
    },
    release() {
      if (live.delete(tracker)) publish();
    },
  };
  live.set(tracker, BreakerState.closed);
  publish();
  return tracker;
}

export interface OutboxBacklog {
  pending: number;
  /** Age of the oldest unpublished event in seconds; 0 when none waits. */
  lagSeconds: number;
}

export interface OutboxMetrics {
  /** Events published (after the transaction marking them committed). */
  published(count: number): void;
  /** Stops reading the backlog at scrapes and removes its series. */
  close(): void;
}

/** The outbox metrics of one schema; `readBacklog` runs when the registry is scraped. */
export function outboxMetrics(schema: string, readBacklog: () => Promise<OutboxBacklog>): OutboxMetrics {
  const published = outboxPublishedTotal().labels(schema);
  const removeSource = addScrapeSource({
    gauges: [
      { name: METRIC_NAMES.outboxPending, gauge: outboxPendingEvents() },
      { name: METRIC_NAMES.outboxLag, gauge: outboxLagSeconds() },
    ],
    labels: { schema },
    read: async () => {
      const backlog = await readBacklog();
      return [backlog.pending, backlog.lagSeconds];
    },
  });
  return {
    published: (count) => published.inc(count),
    close: removeSource,
  };
}

export type BusHandledResult = 'ok' | 'retry' | 'dropped';

export interface ConsumerMetrics {
  handled(result: BusHandledResult): void;
  /** Stops reading the lag at scrapes and removes its series. */
  close(): void;
}

/** The metrics of one durable consumer; `readPending` (not delivered + awaiting ack) runs at scrapes, at most once a second. */
export function consumerMetrics(stream: string, durable: string, readPending: () => Promise<number>): ConsumerMetrics {
  const handled = busHandledTotal();
  const children: Record<BusHandledResult, CounterChild> = {
    ok: handled.labels(stream, durable, 'ok'),
    retry: handled.labels(stream, durable, 'retry'),
    dropped: handled.labels(stream, durable, 'dropped'),
  };
  // Every result exists from the start, so `rate()` and alerts on `dropped` see a 0 rather than nothing.
  for (const child of Object.values(children)) child.inc(0);
  const removeSource = addScrapeSource({
    gauges: [{ name: METRIC_NAMES.consumerPending, gauge: busConsumerPendingMessages() }],
    labels: { stream, durable },
    read: async () => [await readPending()],
  });
  return {
    handled: (result) => children[result].inc(),
    close: removeSource,
  };
}
