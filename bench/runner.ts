/**
 * One bench run: a fresh database, Cairn on it, then each scenario — its baseline started, both servers
 * checked to give the same answer, warmed up, then measured in alternation — and everything stopped and
 * dropped at the end, whatever happened.
 */
import * as path from 'node:path';
import type { Settings } from './args';
import { httpRequest, startCairn } from './cairn';
import { BENCH_ROOT_URL, createContext } from './context';
import { createBenchDatabase } from './database';
import { runLoad } from './load';
import { RESULTS_DIR } from './paths';
import type { ScenarioResult } from './report';
import type { BenchContext, BenchRequest, Scenario } from './scenarios/types';
import { runProblem, summarise, type CheckedRun } from './stats';
import { evaluate } from './targets';

/** Connections per service pool: Cairn's `[database] MAX_OPEN_CONNS` default, also the baselines' pool size. */
export const POOL_SIZE = 10;

export type Say = (line: string) => void;

type Side = 'baseline' | 'cairn';

function header(scenario: Scenario) {
  return {
    name: scenario.name,
    description: scenario.description,
    request: { method: scenario.cairn.method, path: scenario.cairn.path },
    targets: scenario.targets,
  };
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

async function measureScenario(scenario: Scenario, context: BenchContext, settings: Settings, signal: AbortSignal, say: Say): Promise<ScenarioResult> {
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
      // ABBA: a drift in the machine's speed over the run weighs on both servers alike.
      const order: readonly Side[] = round % 2 === 0 ? ['baseline', 'cairn'] : ['cairn', 'baseline'];
      for (const side of order) runs[side].push(await load(side, runSec, `run ${round + 1}/${settings.rounds}`));
    }
    const cairnFigures = summarise(runs.cairn);
    const baselineFigures = summarise(runs.baseline);
    return {
      ...header(scenario),
      status: 'measured',
      cairn: cairnFigures,
      baseline: baselineFigures,
      verdict: evaluate(cairnFigures, baselineFigures, scenario.targets),
    };
  } finally {
    await baseline.stop();
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
    const context = createContext(cairn, { databaseUrl: database.url, poolSize: POOL_SIZE });

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
