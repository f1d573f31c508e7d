import { METRIC_NAMES, UNMATCHED_ROUTE } from './catalogue';
import { metricValue } from './read';
import { BreakerState, consumerMetrics, httpRouteRecorder, outboxMetrics, rpcServerRecorder, splitMethodPath, trackBreaker } from './recorders';
import { metricsRegistry } from './registry';

const scrape = () => metricsRegistry().metrics();

describe('recorders', () => {
  it('count HTTP requests and time them per method, route template and status', async () => {
    const users = httpRouteRecorder('/api/v1/users/{username}');
    expect(httpRouteRecorder('/api/v1/users/{username}')).toBe(users);
    users.record('GET', 200, 0.01);
    users.record('GET', 200, 0.02);
    users.record('GET', 404, 0.001);
    httpRouteRecorder(UNMATCHED_ROUTE).record('GET', 404, 0.001);
    const labels = { method: 'GET', route: '/api/v1/users/{username}', status: '200' };
    expect(await metricValue(METRIC_NAMES.httpRequests, labels)).toBe(2);
    expect(await metricValue(METRIC_NAMES.httpRequests, { ...labels, status: '404' })).toBe(1);
    expect(await metricValue(`${METRIC_NAMES.httpDuration}_count`, labels)).toBe(2);
    expect(await metricValue(`${METRIC_NAMES.httpDuration}_sum`, labels)).toBeCloseTo(0.03);
    expect(await metricValue(METRIC_NAMES.httpRequests, { route: 'unmatched', status: '404' })).toBe(1);
  });

  it('count RPCs per service, method and code, timing them per method', async () => {
    expect(splitMethodPath('/cairn.accounts.v1.UserService/GetUser')).toEqual(['cairn.accounts.v1.UserService', 'GetUser']);
    const recorder = rpcServerRecorder('/cairn.test.v1.EchoService/Echo');
    recorder.record('OK', 0.002);
    recorder.record('NOT_FOUND', 0.001);
    recorder.record('OK', 0.004);
    const method = { grpc_service: 'cairn.test.v1.EchoService', grpc_method: 'Echo' };
    expect(await metricValue(METRIC_NAMES.rpcServerHandled, { ...method, grpc_code: 'OK' })).toBe(2);
    expect(await metricValue(METRIC_NAMES.rpcServerHandled, { ...method, grpc_code: 'NOT_FOUND' })).toBe(1);
    expect(await metricValue(`${METRIC_NAMES.rpcServerHandling}_count`, method)).toBe(3);
  });

  it('show the worst breaker of a client label, and drop the series when the last one is released', async () => {
    const first = trackBreaker('cairn.test.v1.A');
    const second = trackBreaker('cairn.test.v1.A');
    const state = () => metricValue(METRIC_NAMES.breakerState, { client: 'cairn.test.v1.A' });
    expect(await state()).toBe(BreakerState.closed);
    first.set(BreakerState.open);
    expect(await state()).toBe(2);
    second.set(BreakerState.halfOpen);
    expect(await state()).toBe(2);
    first.release();
    expect(await state()).toBe(1);
    first.set(BreakerState.open);
    expect(await state()).toBe(1);
    second.release();
    expect(await state()).toBeUndefined();
  });

  it('read the outbox backlog when scraped, at most once per second, until closed', async () => {
    let reads = 0;
    const outbox = outboxMetrics('svc_a', async () => {
      reads += 1;
      return { pending: 3, lagSeconds: 42.5 };
    });
    expect(reads).toBe(0);
    const text = await scrape();
    expect(text).toContain('cairn_outbox_pending_events{schema="svc_a"} 3');
    expect(text).toContain('cairn_outbox_lag_seconds{schema="svc_a"} 42.5');
    // One read served both gauges, and a scrape right after is answered from it.
    await scrape();
    expect(reads).toBe(1);
    outbox.published(2);
    outbox.published(1);
    expect(await metricValue(METRIC_NAMES.outboxPublished, { schema: 'svc_a' })).toBe(3);
    outbox.close();
    const after = await scrape();
    expect(after).not.toContain('cairn_outbox_pending_events{schema="svc_a"}');
    expect(await metricValue(METRIC_NAMES.outboxLag, { schema: 'svc_a' })).toBeUndefined();
  });

  it('do not let a source that never answers hold up the scrape', async () => {
    const stuck = consumerMetrics('STUCK', 'd', () => new Promise<number>(() => undefined));
    try {
      const text = await scrape();
      expect(text).toContain('cairn_bus_handled_total{stream="STUCK",durable="d",result="ok"} 0');
      expect(text).not.toContain('cairn_bus_consumer_pending_messages{stream="STUCK"');
    } finally {
      stuck.close();
    }
  });

  it('remove the series of a source that fails, and keep the scrape working', async () => {
    let fail = false;
    const consumer = consumerMetrics('S', 'd', async () => {
      if (fail) throw new Error('nats is away');
      return 7;
    });
    try {
      expect(await scrape()).toContain('cairn_bus_consumer_pending_messages{stream="S",durable="d"} 7');
      fail = true;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await scrape()).not.toContain('cairn_bus_consumer_pending_messages{stream="S",durable="d"}');
      consumer.handled('ok');
      consumer.handled('retry');
      consumer.handled('ok');
      expect(await metricValue(METRIC_NAMES.busHandled, { stream: 'S', durable: 'd', result: 'ok' })).toBe(2);
      expect(await metricValue(METRIC_NAMES.busHandled, { stream: 'S', durable: 'd', result: 'retry' })).toBe(1);
      expect(await metricValue(METRIC_NAMES.busHandled, { stream: 'S', durable: 'd', result: 'dropped' })).toBe(0);
    } finally {
      consumer.close();
    }
  });
});
