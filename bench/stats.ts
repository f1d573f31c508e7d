/** From raw load runs to the figures reported per server. */

/** What one measured run of autocannon against one server produced (every response a 200). */
export interface LoadRun {
  responses: number;
  durationSec: number;
  /** Every response's latency, in milliseconds. */
  latenciesMs: number[];
}

/** A run with what tells whether it can be trusted. */
export interface CheckedRun extends LoadRun {
  /** Responses by status code, 200 included. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  mismatches: number;
}

/** Why a run cannot be trusted (not every response a 200 with the expected body), or undefined. */
export function runProblem(run: CheckedRun): string | undefined {
  const problems: string[] = [];
  const other = Object.entries(run.statuses).filter(([status]) => status !== '200');
  if (other.length > 0) problems.push(`non-200 responses: ${other.map(([status, count]) => `${count} × ${status}`).join(', ')}`);
  if (run.errors > 0) problems.push(`${run.errors} connection errors (${run.timeouts} timeouts)`);
  if (run.mismatches > 0) problems.push(`${run.mismatches} responses with another body`);
  if (run.responses === 0) problems.push('no response at all');
  return problems.length === 0 ? undefined : problems.join('; ');
}

export interface ServerFigures {
  requestsPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  responses: number;
  durationSec: number;
  /** Requests/s of each run, to show the spread. */
  runsRequestsPerSec: number[];
}

/** Nearest-rank percentile of ascending `sorted` (p in 0–100]; NaN when there are no samples. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Pools the runs: throughput over their total time, percentiles over all their responses. */
export function summarise(runs: readonly LoadRun[]): ServerFigures {
  const total = runs.reduce((sum, run) => sum + run.latenciesMs.length, 0);
  const sorted = new Float64Array(total);
  let at = 0;
  for (const run of runs) {
    sorted.set(run.latenciesMs, at);
    at += run.latenciesMs.length;
  }
  sorted.sort();
  const responses = runs.reduce((sum, run) => sum + run.responses, 0);
  const durationSec = runs.reduce((sum, run) => sum + run.durationSec, 0);
  let latencySum = 0;
  for (const value of sorted) latencySum += value;
  return {
    requestsPerSec: durationSec > 0 ? responses / durationSec : Number.NaN,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    meanMs: total > 0 ? latencySum / total : Number.NaN,
    maxMs: total > 0 ? sorted[total - 1] : Number.NaN,
    responses,
    durationSec,
    runsRequestsPerSec: runs.map((run) => (run.durationSec > 0 ? run.responses / run.durationSec : Number.NaN)),
  };
}

/** A timed scenario's figures for one side: wall times of its measured runs, in milliseconds. */
export interface TimedFigures {
  medianMs: number;
  p90Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
  /** Every measured run's time, in the order they ran. */
  runsMs: number[];
}

/** The median of ascending `sorted` (the mean of the two middle values for an even count); NaN when empty. */
export function median(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const middle = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summariseTimes(runsMs: readonly number[]): TimedFigures {
  const sorted = [...runsMs].sort((a, b) => a - b);
  const n = sorted.length;
  return {
    medianMs: median(sorted),
    p90Ms: percentile(sorted, 90),
    minMs: n > 0 ? sorted[0] : Number.NaN,
    maxMs: n > 0 ? sorted[n - 1] : Number.NaN,
    meanMs: n > 0 ? sorted.reduce((sum, value) => sum + value, 0) / n : Number.NaN,
    runsMs: [...runsMs],
  };
}

/** A latency scenario's figures for one side: send → received times of its measured events, in milliseconds. */
export interface LatencyFigures {
  events: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
}

export function summariseLatencies(latenciesMs: readonly number[]): LatencyFigures {
  const sorted = Float64Array.from(latenciesMs).sort();
  const n = sorted.length;
  return {
    events: n,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    meanMs: n > 0 ? sorted.reduce((sum, value) => sum + value, 0) / n : Number.NaN,
    maxMs: n > 0 ? sorted[n - 1] : Number.NaN,
  };
}
