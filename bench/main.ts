/**
 * `npm run bench`: Cairn against bare baselines, scenario by scenario (bench/scenarios/), figures as ratios.
 * Exit 0 when every scenario was measured (a missed target prints MISSED; `--strict` makes it exit 1),
 * 1 when a scenario failed or the harness could not run, 2 on bad usage, 130 when interrupted.
 */
import * as path from 'node:path';
import { USAGE, UsageError, parseArgs, type Settings } from './args';
import { RESULTS_DIR } from './paths';
import { buildReport, machineInfo, writeReport, type MachineInfo } from './report';
import { LATENCY_WARMUP_EVENTS, runBench } from './runner';
import { SCENARIOS } from './scenarios';
import { formatScenario, formatSummary } from './table';

const say = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

function describeRun(settings: Settings, machine: MachineInfo): string {
  return (
    `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; load: ${settings.connections} connections, ` +
    `pipelining ${settings.pipelining}, ${settings.durationSec} s measured per server in ${settings.rounds} ` +
    `alternated run(s), ${settings.warmupSec} s warm-up; timed: ${settings.timedRounds} alternated run(s) per side` +
    (settings.warmupSec > 0 ? ' after a warm-up run' : '') +
    `; latency: ${settings.events} events per side, one at a time, in ${settings.rounds} alternated run(s)` +
    (settings.warmupSec > 0 ? ` after ${LATENCY_WARMUP_EVENTS} warm-up events` : '')
  );
}

async function main(): Promise<number> {
  let settings: Settings;
  try {
    const parsed = parseArgs(process.argv.slice(2), process.env, SCENARIOS.map((scenario) => scenario.name));
    if (parsed.kind === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    settings = parsed.settings;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const scenarios = settings.only.length === 0 ? SCENARIOS : SCENARIOS.filter((scenario) => settings.only.includes(scenario.name));

  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (abort.signal.aborted) process.exit(130); // a second Ctrl-C: stop waiting for the clean-up
    say(`${signal}: stopping everything (again to quit at once)`);
    abort.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const machine = machineInfo();
  say(describeRun(settings, machine));
  if (machine.loadAverage[0] > machine.cpus / 2) {
    say(`the machine is busy (load average ${machine.loadAverage[0]} on ${machine.cpus} CPUs): expect noisy figures`);
  }
  let results;
  try {
    results = await runBench(settings, scenarios, abort.signal, say);
  } catch (error) {
    if (abort.signal.aborted) {
      say('interrupted; everything started was stopped');
      return 130;
    }
    say(error instanceof Error ? error.message : String(error));
    return 1;
  }

  process.stdout.write(`\n${results.map(formatScenario).join('\n\n')}\n\n${formatSummary(results)}\n`);
  const file = path.join(RESULTS_DIR, 'latest.json');
  writeReport(buildReport(settings, machine, results), file);
  say(`results written to ${path.relative(process.cwd(), file) || file}`);

  if (results.some((result) => result.status === 'failed')) return 1;
  const missed = results.some((result) => result.status === 'measured' && result.kind !== 'single' && !result.verdict.met);
  return settings.strict && missed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
