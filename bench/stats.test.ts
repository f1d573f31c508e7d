import { median, percentile, runProblem, summarise, summariseLatencies, summariseTimes, type CheckedRun } from './stats';

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 100)).toBe(10);
    expect(percentile(sorted, 10)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summarise', () => {
  it('pools runs: throughput over their total time, percentiles over every response', () => {
    const figures = summarise([
      { responses: 300, durationSec: 1, latenciesMs: Array.from({ length: 300 }, () => 1) },
      { responses: 100, durationSec: 1, latenciesMs: [...Array.from({ length: 98 }, () => 2), 50, 100] },
    ]);
    expect(figures.requestsPerSec).toBe(200);
    expect(figures.runsRequestsPerSec).toEqual([300, 100]);
    expect(figures.p50Ms).toBe(1);
    expect(figures.p90Ms).toBe(2);
    expect(figures.p99Ms).toBe(2);
    expect(figures.maxMs).toBe(100);
    expect(figures.meanMs).toBeCloseTo((300 + 196 + 150) / 400);
    expect(figures).toMatchObject({ responses: 400, durationSec: 2 });
  });

  it('sorts latencies as numbers', () => {
    expect(summarise([{ responses: 3, durationSec: 1, latenciesMs: [10, 9, 100] }]).p50Ms).toBe(10);
  });
});

describe('runProblem', () => {
  const clean: CheckedRun = { responses: 10, durationSec: 1, latenciesMs: [], statuses: { 200: 10 }, errors: 0, timeouts: 0, mismatches: 0 };

  it('accepts a run where every response is a 200 with the expected body', () => {
    expect(runProblem(clean)).toBeUndefined();
  });

  it('names everything that makes a run untrustworthy', () => {
    expect(runProblem({ ...clean, statuses: { 200: 8, 401: 1, 503: 1 } })).toBe('non-200 responses: 1 × 401, 1 × 503');
    expect(runProblem({ ...clean, errors: 3, timeouts: 1 })).toBe('3 connection errors (1 timeouts)');
    expect(runProblem({ ...clean, mismatches: 2 })).toBe('2 responses with another body');
    expect(runProblem({ ...clean, responses: 0, statuses: {} })).toBe('no response at all');
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([1, 2, 9])).toBe(2);
    expect(median([1, 2, 4, 9])).toBe(3);
    expect(median([5])).toBe(5);
    expect(median([])).toBeNaN();
  });
});

describe('summariseTimes', () => {
  it('reports median, p90, min, max and mean, keeping the runs in their order', () => {
    const runsMs = [510, 490, 700, 505, 495, 500, 520, 480, 530, 1000];
    expect(summariseTimes(runsMs)).toEqual({
      medianMs: 507.5,
      p90Ms: 700,
      minMs: 480,
      maxMs: 1000,
      meanMs: 573,
      runsMs,
    });
  });

  it('sorts as numbers and answers NaN without runs', () => {
    expect(summariseTimes([100, 9, 20]).medianMs).toBe(20);
    expect(summariseTimes([])).toEqual({ medianMs: NaN, p90Ms: NaN, minMs: NaN, maxMs: NaN, meanMs: NaN, runsMs: [] });
  });
});

describe('summariseLatencies', () => {
  it('reports the count, nearest-rank percentiles, mean and max, sorting as numbers', () => {
    // 1..200 shuffled by a fixed stride: p50 the 100th, p90 the 180th, p99 the 198th value.
    const latencies = Array.from({ length: 200 }, (_, i) => ((i * 7) % 200) + 1);
    expect(summariseLatencies(latencies)).toEqual({ events: 200, p50Ms: 100, p90Ms: 180, p99Ms: 198, meanMs: 100.5, maxMs: 200 });
    expect(summariseLatencies([100, 9, 20]).p50Ms).toBe(20);
  });

  it('answers NaN without events', () => {
    expect(summariseLatencies([])).toEqual({ events: 0, p50Ms: NaN, p90Ms: NaN, p99Ms: NaN, meanMs: NaN, maxMs: NaN });
  });
});
