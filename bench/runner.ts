/**
 * One bench run: a fresh database, Cairn on it, then each scenario — its baseline started, both sides
 * checked to give the same answer, warmed up, then measured in alternation — and everything stopped and
 * dropped at the end, whatever happened.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Settings } from './args';
import { httpRequest, startCairn } from './cairn';
import { BENCH_ROOT_URL, createContext } from './context';
import { createBenchDatabase } from './database';
import { runLoad } from './load';
import { RESULTS_DIR } from './paths';
import type { LatencyHeader, LatencyResult, LoadHeader, LoadResult, ScenarioResult, SingleHeader, SingleResult, TimedHeader, TimedResult } from './report';
import type { BenchContext, BenchRequest, LatencyScenario, LoadScenario, Scenario, Side, SingleScenario, TimedScenario, TimedSubjects } from './scenarios/types';
import { runProblem, summarise, summariseLatencies, summariseTimes, type CheckedRun } from './stats';
import { MIB, type PeakWatch, watchPeak } from './memory';
import { evaluate, evaluateLatency, evaluateTimed } from './targets';

/** Connections per service pool: Cairn's `[database] MAX_OPEN_CONNS` default, also the baselines' pool size. */
export const POOL_SIZE = 10;

export type Say = (line: string) => void;

function loadHeader({ name, description, cairn, targets }: LoadScenario): LoadHeader {
  return { kind: 'load', name, description, request: { method: cairn.method, path: cairn.path }, targets };
}

function timedHeader({ name, description, command, targets }: TimedScenario): TimedHeader {
  return { kind: 'timed', name, description, command, targets };
}

function latencyHeader({ name, description, event, targets }: LatencyScenario): LatencyHeader {
  return { kind: 'latency', name, description, event, targets };
}

function singleHeader({ name, description, work }: SingleScenario): SingleHeader {
  return { kind: 'single', name, description, work };
}

function header(scenario: Scenario): LoadHeader | TimedHeader | LatencyHeader | SingleHeader {
  switch (scenario.kind) {
    case 'load':
      return loadHeader(scenario);
    case 'timed':
      return timedHeader(scenario);
    case 'latency':
      return latencyHeader(scenario);
    case 'single':
      return singleHeader(scenario);
  }
}

/** Latency scenarios: events per side sent before measuring (discarded), unless `--warmup 0`. */
export const LATENCY_WARMUP_EVENTS = 20;

/** ABBA: a drift in the machine's speed over the run weighs on both sides alike. */
export function roundOrder(round: number): readonly Side[] {
  return round % 2 === 0 ? ['baseline', 'cairn'] : ['cairn', 'baseline'];
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Both servers must answer 200 with the same body, or the comparison means nothing. Returns that body. */
async function sameAnswer(scenario: Scenario, request: BenchRequest, urls: Record<Side, string>): Promise<string> {
  const cairn = await httpRequest(`${urls.cairn}${request.path}`, request);
  const baseline = await httpRequest(`${urls.baseline}${request.path}`, request);
  if (cairn.status !== 200) throw new Error(`Cairn answered ${cairn.status}: ${cairn.body}`);
  if (baseline.status !== 200) throw new Error(`the baseline answered ${baseline.status}: ${baseline.body}`);
  if (cairn.body !== baseline.body) {
    throw new Error(`the "${scenario.name}" baseline answers differently from Cairn:\n  cairn:    ${cairn.body.trim()}\n  baseline: ${baseline.body.trim()}`);
  }
  return cairn.body;
}

async function measureLoad(scenario: LoadScenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<LoadResult> {
  const setup = await scenario.setup(context);
  const request: BenchRequest = { ...scenario.cairn, headers: { ...scenario.cairn.headers, ...setup.headers } };
  const baseline = await scenario.baseline.start(context);
  try {
    const urls: Record<Side, string> = { cairn: context.cairnUrl, baseline: baseline.url };
    const expectBody = await sameAnswer(scenario, request, urls);
    const load = async (side: Side, durationSec: number, what: string): Promise<CheckedRun> => {
      say(`${scenario.name}: ${what} ${side} (${durationSec} s)`);
      const run = await runLoad({ url: urls[side], request, connections: settings.connections, pipelining: settings.pipelining, durationSec, expectBody, signal });
      const problem = runProblem(run);
      if (problem !== undefined) throw new Error(`${side} during ${what}: ${problem}`);
      return run;
    };

    if (settings.warmupSec > 0) for (const side of ['baseline', 'cairn'] as const) await load(side, settings.warmupSec, 'warm-up');
    const runs: Record<Side, CheckedRun[]> = { baseline: [], cairn: [] };
    const runSec = settings.durationSec / settings.rounds;
    for (let round = 0; round < settings.rounds; round++) {
      for (const side of roundOrder(round)) runs[side].push(await load(side, runSec, `run ${round + 1}/${settings.rounds}`));
    }
    const cairnFigures = summarise(runs.cairn);
    const baselineFigures = summarise(runs.baseline);
    return {
      ...loadHeader(scenario),
      status: 'measured',
      cairn: cairnFigures,
      baseline: baselineFigures,
      verdict: evaluate(cairnFigures, baselineFigures, scenario.targets),
    };
  } finally {
    await baseline.stop();
  }
}

/** Times one run of the command on `side` in a fresh directory under `scratch`, removed afterwards (not timed). */
async function timeRun(subjects: TimedSubjects, side: Side, scratch: string, signal: AbortSignal): Promise<number> {
  signal.throwIfAborted();
  const workDir = fs.mkdtempSync(path.join(scratch, `${side}-`));
  try {
    const startedAt = process.hrtime.bigint();
    await subjects.run(side, workDir, signal);
    return Number(process.hrtime.bigint() - startedAt) / 1e6;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

export async function measureTimed(scenario: TimedScenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<TimedResult> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `cairn-bench-${scenario.name}-`));
  try {
    say(`${scenario.name}: preparing`);
    const subjects = await scenario.prepare(context, signal);
    try {
      await subjects.check(signal);
      const time = async (side: Side, what: string): Promise<number> => {
        const ms = await timeRun(subjects, side, scratch, signal).catch((error: unknown) => {
          throw new Error(`${side} during ${what}: ${message(error)}`);
        });
        say(`${scenario.name}: ${what} ${side}: ${ms.toFixed(0)} ms`);
        return ms;
      };

      // From before the first run (the warm-up included): a cold first transfer's allocations count too.
      const memory: PeakWatch | undefined = scenario.memoryOf === undefined ? undefined : watchPeak(context.servicePid(scenario.memoryOf));
      if (settings.warmupSec > 0) for (const side of ['baseline', 'cairn'] as const) await time(side, 'warm-up');
      const runs: Record<Side, number[]> = { baseline: [], cairn: [] };
      for (let round = 0; round < settings.timedRounds; round++) {
        for (const side of roundOrder(round)) runs[side].push(await time(side, `run ${round + 1}/${settings.timedRounds}`));
      }
      const cairnFigures = summariseTimes(runs.cairn);
      const baselineFigures = summariseTimes(runs.baseline);
      const peak = memory?.read();
      if (peak !== undefined) say(`${scenario.name}: ${scenario.memoryOf} resident ${(peak.startBytes / MIB).toFixed(1)} MiB before, peak ${(peak.peakBytes / MIB).toFixed(1)} MiB`);
      const rssGrowthMiB = peak === undefined ? undefined : (peak.peakBytes - peak.startBytes) / MIB;
      return {
        ...timedHeader(scenario),
        status: 'measured',
        cairn: cairnFigures,
        baseline: baselineFigures,
        verdict: evaluateTimed(cairnFigures, baselineFigures, scenario.targets, rssGrowthMiB),
      };
    } finally {
      await subjects.stop();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * One event at a time (never two in flight, so neither side queues behind itself), `settings.events` per side split
 * over `settings.rounds` runs in ABBA order; percentiles over every measured event of a side.
 */
export async function measureLatency(scenario: LatencyScenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<LatencyResult> {
  say(`${scenario.name}: preparing`);
  const subjects = await scenario.prepare(context, signal);
  try {
    await subjects.check(signal);
    const series = async (side: Side, count: number, what: string): Promise<number[]> => {
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) {
        signal.throwIfAborted();
        latencies.push(
          await subjects.event(side, signal).catch((error: unknown) => {
            throw new Error(`${side} during ${what}, event ${i + 1}/${count}: ${message(error)}`);
          }),
        );
      }
      const figures = summariseLatencies(latencies);
      say(`${scenario.name}: ${what} ${side}: ${count} events, p50 ${figures.p50Ms.toFixed(2)} ms, max ${figures.maxMs.toFixed(2)} ms`);
      return latencies;
    };

    if (settings.warmupSec > 0) for (const side of ['baseline', 'cairn'] as const) await series(side, LATENCY_WARMUP_EVENTS, 'warm-up');
    const runs: Record<Side, number[]> = { baseline: [], cairn: [] };
    for (let round = 0; round < settings.rounds; round++) {
      // The events spread as evenly as they go: the first rounds take the remainder.
      const count = Math.floor(settings.events / settings.rounds) + (round < settings.events % settings.rounds ? 1 : 0);
      if (count === 0) continue;
      for (const side of roundOrder(round)) runs[side].push(...(await series(side, count, `run ${round + 1}/${settings.rounds}`)));
    }
    const cairnFigures = summariseLatencies(runs.cairn);
    const baselineFigures = summariseLatencies(runs.baseline);
    return {
      ...latencyHeader(scenario),
      status: 'measured',
      cairn: cairnFigures,
      baseline: baselineFigures,
      verdict: evaluateLatency(cairnFigures, baselineFigures, scenario.targets),
    };
  } finally {
    await subjects.stop();
  }
}

/** Once, cold: no warm-up (that would make it warm), no rounds, no baseline. */
export async function measureSingle(scenario: SingleScenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<SingleResult> {
  say(`${scenario.name}: running once`);
  const figures = await scenario.run(context, { issues: settings.issues }, signal, say);
  return { ...singleHeader(scenario), status: 'measured', figures };
}

function measureScenario(scenario: Scenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<ScenarioResult> {
  switch (scenario.kind) {
    case 'load':
      return measureLoad(scenario, context, settings, signal, say);
    case 'timed':
      return measureTimed(scenario, context, settings, signal, say);
    case 'latency':
      return measureLatency(scenario, context, settings, signal, say);
    case 'single':
      return measureSingle(scenario, context, settings, signal, say);
  }
}

export async function runBench(settings: Settings, scenarios: readonly Scenario[], signal: AbortSignal, say: Say): Promise<ScenarioResult[]> {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    say('creating the bench database');
    const database = await createBenchDatabase(settings.databaseUrl);
    cleanups.push(() => database.drop());
    const profileDir = settings.profile ? path.join(RESULTS_DIR, 'profiles', new Date().toISOString().replace(/[:.]/g, '-')) : undefined;
    say(`starting Cairn (supervisor, NATS ${settings.natsUrl}, database ${database.name})`);
    const cairn = await startCairn({ databaseUrl: database.url, natsUrl: settings.natsUrl, poolSize: POOL_SIZE, rootUrl: BENCH_ROOT_URL, profileDir, signal });
    cleanups.push(async () => {
      say('stopping Cairn');
      await cairn.stop();
      if (profileDir !== undefined) say(`CPU profiles of Cairn's processes: ${profileDir}`);
    });
    const context = createContext(cairn, { databaseUrl: database.url, natsUrl: settings.natsUrl, poolSize: POOL_SIZE });

    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      signal.throwIfAborted();
      try {
        results.push(await measureScenario(scenario, context, settings, signal, say));
      } catch (error) {
        if (signal.aborted) throw error;
        say(`${scenario.name} FAILED: ${message(error)}`);
        results.push({ ...header(scenario), status: 'failed', error: message(error) });
      }
    }
    return results;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => say(`clean-up failed: ${message(error)}`));
  }
}
