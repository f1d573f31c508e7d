/**
 * What a scenario is, and what the harness gives it. Four kinds:
 * - a load scenario names one request, seeds what the request needs, and starts a baseline server doing the
 *   same work without Cairn's services; the harness drives both with the same load (requests/s, p99);
 * - a timed scenario prepares a command against Cairn and the same command against a baseline; the harness
 *   runs them one at a time, alternately, and compares their wall times;
 * - a latency scenario prepares an event that Cairn carries to a receiver (a comment → its webhook delivery) and
 *   the same kind of event through a baseline pipeline; the harness sends them one at a time, alternately in
 *   rounds, and compares the percentiles of their send → received latencies;
 * - a single scenario does one long piece of work once, cold (an import of 10,000 issues), where no baseline
 *   process exists to compare with: it reports its own figures (rates, times, the CPU split), with no ratio.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request, sent unchanged to Cairn and to the baseline (paths are absolute, `/api/v1/…`). */
export interface BenchRequest {
  method: HttpMethod;
  path: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

/** A load scenario's Cairn compared with the baseline measured in the same run. */
export interface Targets {
  /** Cairn's requests/s divided by the baseline's must be at least this. */
  minThroughputRatio: number;
  /** Cairn's p99 latency divided by the baseline's must be at most this. */
  maxP99Ratio: number;
}

/** The issue's targets: half the baseline's throughput, twice its p99 latency. */
export const DEFAULT_TARGETS: Readonly<Targets> = Object.freeze({ minThroughputRatio: 0.5, maxP99Ratio: 2 });

/** A timed scenario's Cairn compared with the baseline timed in the same run. */
export interface TimedTargets {
  /** Cairn's median wall time divided by the baseline's must be at most this. */
  maxTimeRatio: number;
  /**
   * The peak resident memory of the Cairn service the scenario names (`memoryOf`), over the warm-up and every
   * measured run, may exceed its size before them by at most this many MiB.
   */
  maxRssGrowthMiB?: number;
}

/** A latency scenario's Cairn compared with the baseline measured in the same run. */
export interface LatencyTargets {
  /** Cairn's p99 latency divided by the baseline's must be at most this. */
  maxP99Ratio: number;
}

export interface RunningBaseline {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  stop(): Promise<void>;
}

/** An account on the Cairn under test, with a token for it (scope `read:user`). */
export interface BenchUser {
  username: string;
  password: string;
  token: string;
}

/** What the harness offers scenarios. */
export interface BenchContext {
  /** The running Cairn's base URL. */
  cairnUrl: string;
  /** Cairn's `[server] ROOT_URL`, used in the JSON it writes (links); baselines must write the same. */
  rootUrl: string;
  /** Cairn's version, as `GET /api/v1/version` reports it. */
  version: string;
  /** The database Cairn runs on (each service in its own schema). */
  databaseUrl: string;
  /** The NATS server Cairn runs on; a baseline pipeline may use it too (its own stream). */
  natsUrl: string;
  /** Connections in each of Cairn's service pools (`[database] MAX_OPEN_CONNS`); baselines use as many. */
  poolSize: number;
  /** The process id of one of Cairn's services (`gateway`, `repos`, …), as the supervisor's runtime file says. */
  servicePid(name: string): number;
  /** The names of Cairn's services that run as processes (the supervisor's runtime file). */
  serviceNames(): string[];
  /** The shared bench account, created on first use (CLI + token over the API). */
  benchUser(): Promise<BenchUser>;
  /** Runs `bench/baselines/<name>.ts` (compiled) in a child process with `env`; resolves once it listens. */
  startBaseline(name: string, env: Record<string, string>): Promise<RunningBaseline>;
}

/** What `setup` returns: headers every request of the scenario carries (credentials, typically). */
export interface ScenarioSetup {
  headers?: Record<string, string>;
}

export interface LoadScenario {
  kind: 'load';
  /** Short name: `--only <name>` and the key in the results. */
  name: string;
  /** One line saying what is compared. */
  description: string;
  /** Seeds the data the request needs; runs once Cairn is up. */
  setup(context: BenchContext): Promise<ScenarioSetup>;
  /**
   * `setup` writes to the running Cairn and its database (not only through `benchUser`), so the registry test
   * (bench/scenarios.test.ts) does not run it against its fake context: the scenario's own test covers what it
   * seeds, and a bench run checks both sides answer the same.
   */
  seedsCairn?: boolean;
  /** The request measured (the baseline gets the same one). */
  cairn: BenchRequest;
  baseline: {
    start(context: BenchContext): Promise<RunningBaseline>;
  };
  targets: Targets;
}

export type Side = 'baseline' | 'cairn';

/** What a timed scenario's `prepare` made ready: the command on each side, until `stop`. */
export interface TimedSubjects {
  /**
   * One run of the measured command against `side`; only this is timed. `workDir` is a fresh empty
   * directory for whatever the command writes, removed by the harness afterwards (not timed).
   */
  run(side: Side, workDir: string, signal: AbortSignal): Promise<void>;
  /** Throws unless both sides give the same result; called once, before the warm-up. */
  check(signal: AbortSignal): Promise<void>;
  /** Stops the baseline and removes what `prepare` wrote; called whatever happened. */
  stop(): Promise<void>;
}

export interface TimedScenario {
  kind: 'timed';
  /** Short name: `--only <name>` and the key in the results. */
  name: string;
  /** One line saying what is compared. */
  description: string;
  /** The command timed, as printed (placeholders for what differs between the sides). */
  command: string;
  /**
   * Seeds Cairn, builds the baseline's data and starts the baseline, once Cairn is up. Cleans up what it
   * made itself when it fails; once it resolves, the harness calls `stop`.
   */
  prepare(context: BenchContext, signal: AbortSignal): Promise<TimedSubjects>;
  /** The Cairn service whose peak memory `targets.maxRssGrowthMiB` bounds. */
  memoryOf?: string;
  targets: TimedTargets;
}

/** What a latency scenario's `prepare` made ready: one event at a time on each side, until `stop`. */
export interface LatencySubjects {
  /**
   * Sends one event on `side` and resolves once the receiver got it whole, with the milliseconds between the
   * two; rejects when it does not arrive (or arrives other than expected).
   */
  event(side: Side, signal: AbortSignal): Promise<number>;
  /** Throws unless both sides deliver what they should; called once, before the warm-up. */
  check(signal: AbortSignal): Promise<void>;
  /** Stops the baseline and the receiver; called whatever happened. */
  stop(): Promise<void>;
}

export interface LatencyScenario {
  kind: 'latency';
  /** Short name: `--only <name>` and the key in the results. */
  name: string;
  /** One line saying what is compared. */
  description: string;
  /** The event and where its latency ends, as printed. */
  event: string;
  /** Seeds Cairn, starts the receiver and the baseline, once Cairn is up; cleans up itself when it fails. */
  prepare(context: BenchContext, signal: AbortSignal): Promise<LatencySubjects>;
  targets: LatencyTargets;
}

/** One figure a single scenario reports, e.g. `{ group: 'rate', name: 'issues', value: 52.1, unit: 'issues/s' }`. */
export interface Figure {
  /** Figures print grouped, in order of first appearance (`result`, `step`, `cpu`, …). */
  group: string;
  name: string;
  value: number;
  unit: string;
}

/** What a single scenario's run may be told by the command line. */
export interface SingleOptions {
  /** `--issues`: how many issues an import scenario seeds and imports. */
  issues: number;
}

export interface SingleScenario {
  kind: 'single';
  /** Short name: `--only <name>` and the key in the results. */
  name: string;
  /** One line saying what is measured, and that there is no baseline. */
  description: string;
  /** The work measured, as printed. */
  work: string;
  /** Seeds, does the work once and measures it; cleans up what it made outside Cairn itself. */
  run(context: BenchContext, options: SingleOptions, signal: AbortSignal, say: (line: string) => void): Promise<Figure[]>;
}

export type Scenario = LoadScenario | TimedScenario | LatencyScenario | SingleScenario;
