/** `npm run bench -- [options]`: command line and `CAIRN_BENCH_*` environment → settings. */

export interface Settings {
  /** Measured seconds per server and scenario, split over `rounds` runs. */
  durationSec: number;
  /** Seconds of load before measuring, per server and scenario (results discarded); 0 also skips the timed warm-up run. */
  warmupSec: number;
  /** Measured runs per server, alternated baseline/Cairn in ABBA order to cancel drift. */
  rounds: number;
  /** Timed scenarios: measured runs of the command per side, alternated in ABBA order like `rounds`. */
  timedRounds: number;
  /** Latency scenarios: measured events per side, split over `rounds` runs alternated in ABBA order. */
  events: number;
  connections: number;
  pipelining: number;
  /** Single scenarios that import: issues seeded and imported (migrate-issues). */
  issues: number;
  /** Scenario names to run; empty: all. */
  only: string[];
  /** Exit 1 when a target is missed (default: report "MISSED" and exit 0). */
  strict: boolean;
  /** Write CPU profiles of Cairn's processes (bench/profile.ts) under bench/results/profiles/. */
  profile: boolean;
  /** Server where the bench database is created (and dropped at the end). */
  databaseUrl: string;
  natsUrl: string;
}

export type ParsedArgs = { kind: 'help' } | { kind: 'run'; settings: Settings };

export class UsageError extends Error {}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export const USAGE = `usage: npm run bench -- [options]

  --duration <s>      load scenarios: measured seconds per server (default 10; CAIRN_BENCH_DURATION)
  --warmup <s>        load scenarios: warm-up seconds per server, discarded; 0 also skips the timed
                      scenarios' warm-up run (default 2; CAIRN_BENCH_WARMUP)
  --rounds <n>        load and latency scenarios: measured runs per server, alternated with the other (default 2;
                      CAIRN_BENCH_ROUNDS)
  --timed-rounds <n>  timed scenarios: measured runs of the command per side, alternated (default 7;
                      CAIRN_BENCH_TIMED_ROUNDS)
  --events <n>        latency scenarios: measured events per side, one at a time, split over --rounds
                      alternated runs (default 200; CAIRN_BENCH_EVENTS)
  --connections <n>   concurrent connections (default 32; CAIRN_BENCH_CONNECTIONS)
  --pipelining <n>    requests in flight per connection (default 1; CAIRN_BENCH_PIPELINING)
  --issues <n>        migrate-issues: issues seeded (2 comments each) and imported (default 10000;
                      CAIRN_BENCH_ISSUES)
  --only <name>       run only this scenario (repeatable, or comma-separated)
  --strict            exit 1 when a target is missed
  --profile           write CPU profiles of Cairn's processes to bench/results/profiles/
  --help              this text

  PostgreSQL: CAIRN_BENCH_DATABASE_URL (default ${DEFAULT_DATABASE_URL})
  NATS:       CAIRN_BENCH_NATS_URL (default ${DEFAULT_NATS_URL})`;

type NumberKind = 'positive' | 'non-negative' | 'positive-integer';

function parseNumber(what: string, text: string, kind: NumberKind): number {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const ok =
    Number.isFinite(value) &&
    (kind === 'non-negative' ? value >= 0 : value > 0) &&
    (kind !== 'positive-integer' || Number.isInteger(value));
  if (!ok) throw new UsageError(`invalid ${what} "${text}": expected a ${kind.replace('-', ' ')} number`);
  return value;
}

const NUMERIC_OPTIONS: Record<string, { key: 'durationSec' | 'warmupSec' | 'rounds' | 'timedRounds' | 'events' | 'connections' | 'pipelining' | 'issues'; env: string; kind: NumberKind }> = {
  duration: { key: 'durationSec', env: 'CAIRN_BENCH_DURATION', kind: 'positive' },
  warmup: { key: 'warmupSec', env: 'CAIRN_BENCH_WARMUP', kind: 'non-negative' },
  rounds: { key: 'rounds', env: 'CAIRN_BENCH_ROUNDS', kind: 'positive-integer' },
  'timed-rounds': { key: 'timedRounds', env: 'CAIRN_BENCH_TIMED_ROUNDS', kind: 'positive-integer' },
  events: { key: 'events', env: 'CAIRN_BENCH_EVENTS', kind: 'positive-integer' },
  connections: { key: 'connections', env: 'CAIRN_BENCH_CONNECTIONS', kind: 'positive-integer' },
  pipelining: { key: 'pipelining', env: 'CAIRN_BENCH_PIPELINING', kind: 'positive-integer' },
  issues: { key: 'issues', env: 'CAIRN_BENCH_ISSUES', kind: 'positive-integer' },
};

/**
 * Options win over the environment, which wins over the defaults. `scenarioNames` are the known
 * scenarios, so a misspelt `--only` stops with the list instead of running nothing.
 */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv, scenarioNames: readonly string[]): ParsedArgs {
  const settings: Settings = {
    durationSec: 10,
    warmupSec: 2,
    rounds: 2,
    timedRounds: 7,
    events: 200,
    connections: 32,
    pipelining: 1,
    issues: 10_000,
    only: [],
    strict: false,
    profile: false,
    databaseUrl: env.CAIRN_BENCH_DATABASE_URL || DEFAULT_DATABASE_URL,
    natsUrl: env.CAIRN_BENCH_NATS_URL || DEFAULT_NATS_URL,
  };
  for (const [option, { key, env: variable, kind }] of Object.entries(NUMERIC_OPTIONS)) {
    const text = env[variable];
    if (text !== undefined && text !== '') settings[key] = parseNumber(variable, text, kind);
  }

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const equals = arg.indexOf('=');
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
    const inline = equals < 0 ? undefined : arg.slice(equals + 1);
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i++;
      return next;
    };
    const flag = (): true => {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      return true;
    };
    const numeric = NUMERIC_OPTIONS[name];
    if (numeric !== undefined) {
      settings[numeric.key] = parseNumber(`--${name}`, value(), numeric.kind);
      continue;
    }
    switch (name) {
      case 'help':
        flag();
        return { kind: 'help' };
      case 'strict':
        settings.strict = flag();
        break;
      case 'profile':
        settings.profile = flag();
        break;
      case 'only':
        for (const only of value().split(',').map((s) => s.trim()).filter((s) => s !== '')) {
          if (!scenarioNames.includes(only)) {
            throw new UsageError(`unknown scenario "${only}" (scenarios: ${scenarioNames.join(', ')})`);
          }
          if (!settings.only.includes(only)) settings.only.push(only);
        }
        break;
      default:
        throw new UsageError(`unknown option "--${name}"`);
    }
  }
  return { kind: 'run', settings };
}
