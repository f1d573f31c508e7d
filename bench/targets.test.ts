import { DEFAULT_TARGETS } from './scenarios/types';
import { evaluate, evaluateLatency, evaluateTimed, formatRatio, latencyMisses, misses, ratio, timedMisses } from './targets';

describe('evaluate', () => {
  const baseline = { requestsPerSec: 1000, p99Ms: 10 };

  it('computes cairn/baseline ratios', () => {
    const verdict = evaluate({ requestsPerSec: 600, p99Ms: 15 }, baseline, DEFAULT_TARGETS);
    expect(verdict.throughputRatio).toBeCloseTo(0.6);
    expect(verdict.p99Ratio).toBeCloseTo(1.5);
    expect(verdict).toMatchObject({ throughputMet: true, p99Met: true, met: true });
  });

  it('meets the targets exactly at the limits', () => {
    expect(evaluate({ requestsPerSec: 500, p99Ms: 20 }, baseline, DEFAULT_TARGETS).met).toBe(true);
  });

  it('misses on low throughput or high p99, each on its own', () => {
    expect(evaluate({ requestsPerSec: 499, p99Ms: 5 }, baseline, DEFAULT_TARGETS)).toMatchObject({ throughputMet: false, p99Met: true, met: false });
    expect(evaluate({ requestsPerSec: 2000, p99Ms: 20.1 }, baseline, DEFAULT_TARGETS)).toMatchObject({ throughputMet: true, p99Met: false, met: false });
  });

  it('uses the scenario targets', () => {
    expect(evaluate({ requestsPerSec: 600, p99Ms: 15 }, baseline, { minThroughputRatio: 0.8, maxP99Ratio: 1.2 })).toMatchObject({
      throughputMet: false,
      p99Met: false,
    });
  });

  it('never meets a target it cannot compute', () => {
    const verdict = evaluate({ requestsPerSec: 600, p99Ms: 15 }, { requestsPerSec: 0, p99Ms: Number.NaN }, DEFAULT_TARGETS);
    expect(verdict.throughputRatio).toBeNaN();
    expect(verdict).toMatchObject({ throughputMet: false, p99Met: false, met: false });
  });
});

describe('ratio, misses and formatRatio', () => {
  it('divides only by a positive number', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(3, 0)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });

  it('says what was missed', () => {
    const verdict = evaluate({ requestsPerSec: 420, p99Ms: 25 }, { requestsPerSec: 1000, p99Ms: 10 }, DEFAULT_TARGETS);
    expect(misses(verdict, DEFAULT_TARGETS)).toEqual(['throughput 0.42× < 0.50×', 'p99 2.50× > 2.00×']);
    expect(misses(evaluate({ requestsPerSec: 1, p99Ms: 1 }, { requestsPerSec: 1, p99Ms: 1 }, DEFAULT_TARGETS), DEFAULT_TARGETS)).toEqual([]);
  });

  it('formats ratios with two decimals', () => {
    expect(formatRatio(0.5)).toBe('0.50×');
    expect(formatRatio(Number.NaN)).toBe('n/a');
  });
});

describe('evaluateTimed and timedMisses', () => {
  const targets = { maxTimeRatio: 1.1 };

  it('compares the medians, met up to the limit', () => {
    expect(evaluateTimed({ medianMs: 1050 }, { medianMs: 1000 }, targets)).toEqual({ timeRatio: 1.05, timeMet: true, memoryMet: true, met: true });
    expect(evaluateTimed({ medianMs: 1100 }, { medianMs: 1000 }, targets).met).toBe(true);
    expect(evaluateTimed({ medianMs: 900 }, { medianMs: 1000 }, targets).met).toBe(true);
    expect(evaluateTimed({ medianMs: 1101 }, { medianMs: 1000 }, targets).met).toBe(false);
  });

  it('never meets a target it cannot compute', () => {
    expect(evaluateTimed({ medianMs: 500 }, { medianMs: Number.NaN }, targets)).toEqual({ timeRatio: Number.NaN, timeMet: false, memoryMet: true, met: false });
  });

  it('says what was missed', () => {
    expect(timedMisses(evaluateTimed({ medianMs: 1234 }, { medianMs: 1000 }, targets), targets)).toEqual(['time 1.23× > 1.10×']);
    expect(timedMisses(evaluateTimed({ medianMs: 1000 }, { medianMs: 1000 }, targets), targets)).toEqual([]);
  });

  it('bounds the watched service memory growth when the scenario does, missing it when unmeasured', () => {
    const bounded = { maxTimeRatio: 1.25, maxRssGrowthMiB: 64 };
    expect(evaluateTimed({ medianMs: 1000 }, { medianMs: 1000 }, bounded, 64)).toMatchObject({ memoryMet: true, met: true, rssGrowthMiB: 64 });
    const over = evaluateTimed({ medianMs: 1000 }, { medianMs: 1000 }, bounded, 80);
    expect(over).toMatchObject({ timeMet: true, memoryMet: false, met: false });
    expect(timedMisses(over, bounded)).toEqual(['memory +80.0 MiB > +64.0 MiB']);
    expect(evaluateTimed({ medianMs: 1000 }, { medianMs: 1000 }, bounded)).toMatchObject({ memoryMet: false, met: false });
  });
});

describe('evaluateLatency and latencyMisses', () => {
  const targets = { maxP99Ratio: 3 };

  it('compares the p99s, met up to the limit', () => {
    expect(evaluateLatency({ p99Ms: 25 }, { p99Ms: 10 }, targets)).toEqual({ p99Ratio: 2.5, p99Met: true, met: true });
    expect(evaluateLatency({ p99Ms: 30 }, { p99Ms: 10 }, targets).met).toBe(true);
    expect(evaluateLatency({ p99Ms: 30.1 }, { p99Ms: 10 }, targets).met).toBe(false);
  });

  it('never meets a target it cannot compute, and says what was missed', () => {
    expect(evaluateLatency({ p99Ms: 5 }, { p99Ms: Number.NaN }, targets)).toEqual({ p99Ratio: Number.NaN, p99Met: false, met: false });
    expect(latencyMisses(evaluateLatency({ p99Ms: 32 }, { p99Ms: 10 }, targets), targets)).toEqual(['p99 3.20× > 3.00×']);
    expect(latencyMisses(evaluateLatency({ p99Ms: 10 }, { p99Ms: 10 }, targets), targets)).toEqual([]);
  });
});
