import { Counter } from 'prom-client';
import { METRIC_NAMES, httpRequestsTotal, outboxLagSeconds, rpcServerHandled } from './catalogue';
import { counter, gauge, metricsRegistry } from './registry';

describe('registry', () => {
  it('is one per process and gives the same metric to every caller', () => {
    expect(metricsRegistry()).toBe(metricsRegistry());
    expect(httpRequestsTotal()).toBe(httpRequestsTotal());
    expect(rpcServerHandled()).toBe(rpcServerHandled());
    expect(outboxLagSeconds()).toBe(outboxLagSeconds());
    expect(metricsRegistry().getSingleMetric(METRIC_NAMES.httpRequests)).toBeInstanceOf(Counter);
  });

  it('refuses one name for two kinds of metric', () => {
    counter({ name: 'cairn_test_kind_total', help: 'x', labelNames: [] });
    expect(() => gauge({ name: 'cairn_test_kind_total', help: 'x', labelNames: [] })).toThrow(/already registered as another type/);
  });

  it('names every metric of the catalogue with the cairn_ prefix', () => {
    for (const name of Object.values(METRIC_NAMES)) expect(name).toMatch(/^cairn_[a-z_]+$/);
  });
});
