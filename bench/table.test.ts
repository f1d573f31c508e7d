import type { LatencyResult, ScenarioResult, TimedResult } from './report';
import { DEFAULT_TARGETS } from './scenarios/types';
import { summariseLatencies, summariseTimes, type ServerFigures } from './stats';
import { formatScenario, formatSummary, formatTable } from './table';
import { evaluate, evaluateLatency, evaluateTimed } from './targets';

function figures(requestsPerSec: number, p50Ms: number, p99Ms: number): ServerFigures {
  return { requestsPerSec, p50Ms, p90Ms: p99Ms, p99Ms, meanMs: p50Ms, maxMs: p99Ms, responses: 0, durationSec: 10, runsRequestsPerSec: [] };
}

function measured(name: string, cairn: ServerFigures, baseline: ServerFigures): ScenarioResult {
  return {
    kind: 'load',
    name,
    description: 'what is compared',
    request: { method: 'GET', path: `/api/v1/${name}` },
    targets: DEFAULT_TARGETS,
    status: 'measured',
    cairn,
    baseline,
    verdict: evaluate(cairn, baseline, DEFAULT_TARGETS),
  };
}

describe('formatTable', () => {
  it('pads columns to the widest cell, aligned as asked, without trailing spaces', () => {
    expect(formatTable([['a', 'bb', 'c'], ['long', '1', '']], ['left', 'right', 'left'])).toBe('a     bb  c\nlong   1');
  });
});

describe('formatScenario', () => {
  it('prints figures, ratios, targets and the verdict', () => {
    const text = formatScenario(measured('user', figures(2500.4, 4.5, 12.25), figures(5000, 2, 10)));
    expect(text).toBe(
      [
        'user: GET /api/v1/user — what is compared',
        '                    req/s  p50 ms   p99 ms',
        '  cairn              2500    4.50    12.25',
        '  baseline           5000    2.00    10.00',
        '  cairn/baseline    0.50×            1.23×',
        '  target          ≥ 0.50×          ≤ 2.00×',
        '  result               ok               ok',
      ].join('\n'),
    );
  });

  it('marks a missed target MISSED', () => {
    const text = formatScenario(measured('version', figures(1000, 3, 30), figures(5000, 1, 10)));
    expect(text).toMatch(/result\s+MISSED\s+MISSED$/);
  });

  it('prints a failed scenario with its error', () => {
    const failed: ScenarioResult = {
      kind: 'load',
      name: 'user',
      description: 'd',
      request: { method: 'GET', path: '/api/v1/user' },
      targets: DEFAULT_TARGETS,
      status: 'failed',
      error: 'cairn during run 1/2: non-200 responses: 3 × 503',
    };
    expect(formatScenario(failed)).toBe('user: GET /api/v1/user — d\n  FAILED: cairn during run 1/2: non-200 responses: 3 × 503');
  });
});

const CLONE_TARGETS = { maxTimeRatio: 1.1 };

function timed(cairnMs: number[], baselineMs: number[]): TimedResult {
  const cairn = summariseTimes(cairnMs);
  const baseline = summariseTimes(baselineMs);
  return {
    kind: 'timed',
    name: 'git-clone',
    description: '5000 commits',
    command: 'git clone --bare <url> <new dir>',
    targets: CLONE_TARGETS,
    status: 'measured',
    cairn,
    baseline,
    verdict: evaluateTimed(cairn, baseline, CLONE_TARGETS),
  };
}

describe('formatScenario for a timed scenario', () => {
  it('prints the wall times of both sides, the ratio of the medians, the target and the verdict', () => {
    expect(formatScenario(timed([1040, 1000, 1500], [1000, 990, 1010]))).toBe(
      [
        'git-clone: git clone --bare <url> <new dir> — 5000 commits',
        '                  median ms   p90 ms   min ms   max ms',
        '  cairn             1040.00  1500.00  1000.00  1500.00',
        '  baseline          1000.00  1010.00   990.00  1010.00',
        '  cairn/baseline      1.04×',
        '  target            ≤ 1.10×',
        '  result                 ok',
      ].join('\n'),
    );
  });

  it('marks a missed target MISSED, and prints a failure with its error', () => {
    expect(formatScenario(timed([1200], [1000]))).toMatch(/result\s+MISSED$/);
    const failed: TimedResult = { ...timed([], []), status: 'failed', error: 'cairn during warm-up: git clone exited 128: fatal' };
    expect(formatScenario(failed)).toBe('git-clone: git clone --bare <url> <new dir> — 5000 commits\n  FAILED: cairn during warm-up: git clone exited 128: fatal');
  });
});

function latency(cairnMs: number[], baselineMs: number[]): LatencyResult {
  const targets = { maxP99Ratio: 3 };
  const cairn = summariseLatencies(cairnMs);
  const baseline = summariseLatencies(baselineMs);
  return {
    kind: 'latency',
    name: 'webhook-latency',
    description: 'comment to delivery',
    event: 'POST …/comments until delivered',
    targets,
    status: 'measured',
    cairn,
    baseline,
    verdict: evaluateLatency(cairn, baseline, targets),
  };
}

describe('formatScenario for a latency scenario', () => {
  it('prints the percentiles of both sides, the ratio of the p99s, the target and the verdict', () => {
    expect(formatScenario(latency([20, 30, 50], [5, 8, 20]))).toBe(
      [
        'webhook-latency: POST …/comments until delivered — comment to delivery',
        '                  events  p50 ms  p90 ms   p99 ms  max ms',
        '  cairn                3   30.00   50.00    50.00   50.00',
        '  baseline             3    8.00   20.00    20.00   20.00',
        '  cairn/baseline                            2.50×',
        '  target                                  ≤ 3.00×',
        '  result                                       ok',
      ].join('\n'),
    );
  });

  it('marks a missed target MISSED, and prints a failure with its error', () => {
    expect(formatScenario(latency([61], [20]))).toMatch(/result\s+MISSED$/);
    const failed: LatencyResult = { ...latency([], []), status: 'failed', error: 'cairn during run 1/2, event 3/100: no delivery' };
    expect(formatScenario(failed)).toBe('webhook-latency: POST …/comments until delivered — comment to delivery\n  FAILED: cairn during run 1/2, event 3/100: no delivery');
  });
});

describe('formatSummary', () => {
  it('says all targets were met', () => {
    expect(formatSummary([measured('version', figures(900, 1, 1), figures(1000, 1, 1))])).toBe('all targets met (1 scenario)');
  });

  it('lists missed targets and failures', () => {
    const results: ScenarioResult[] = [
      measured('version', figures(100, 1, 30), figures(1000, 1, 10)),
      measured('user', figures(900, 1, 1), figures(1000, 1, 1)),
      { kind: 'load', name: 'repos', description: '', request: { method: 'GET', path: '/' }, targets: DEFAULT_TARGETS, status: 'failed', error: 'x' },
    ];
    expect(formatSummary(results)).toBe('version MISSED (throughput 0.10× < 0.50×, p99 3.00× > 2.00×); repos FAILED');
    expect(formatSummary([timed([1300], [1000]), measured('user', figures(900, 1, 1), figures(1000, 1, 1))])).toBe('git-clone MISSED (time 1.30× > 1.10×)');
    expect(formatSummary([timed([1000], [1000]), measured('user', figures(900, 1, 1), figures(1000, 1, 1))])).toBe('all targets met (2 scenarios)');
    expect(formatSummary([latency([61], [20]), timed([1000], [1000])])).toBe('webhook-latency MISSED (p99 3.05× > 3.00×)');
    expect(formatSummary([])).toBe('no scenario ran');
  });
});
