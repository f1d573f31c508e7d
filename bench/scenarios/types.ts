/**
 * What a scenario is, and what the harness gives it. A scenario names one request, seeds what the request
 * needs, and starts a baseline server doing the same work without Cairn's services; the harness drives
 * both with the same load and compares them against the scenario's targets.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request, sent unchanged to Cairn and to the baseline (paths are absolute, `/api/v1/…`). */
export interface BenchRequest {
  method: HttpMethod;
  path: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

/** Cairn compared with the baseline measured in the same run. */
export interface Targets {
  /** Cairn's requests/s divided by the baseline's must be at least this. */
  minThroughputRatio: number;
  /** Cairn's p99 latency divided by the baseline's must be at most this. */
  maxP99Ratio: number;
}

/** The targets: half the baseline's throughput, twice its p99 latency. */
export const DEFAULT_TARGETS: Readonly<Targets> = Object.freeze({ minThroughputRatio: 0.5, maxP99Ratio: 2 });

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
  /** Connections in each of Cairn's service pools (`[database] MAX_OPEN_CONNS`); baselines use as many. */
  poolSize: number;
  /** The shared bench account, created on first use (CLI + token over the API). */
  benchUser(): Promise<BenchUser>;
  /** Runs `bench/baselines/<name>.ts` (compiled) in a child process with `env`; resolves once it listens. */
  startBaseline(name: string, env: Record<string, string>): Promise<RunningBaseline>;
}

/** What `setup` returns: headers every request of the scenario carries (credentials, typically). */
export interface ScenarioSetup {
  headers?: Record<string, string>;
}

export interface Scenario {
  /** Short name: `--only <name>` and the key in the results. */
  name: string;
  /** One line saying what is compared. */
  description: string;
  /** Seeds the data the request needs; runs once Cairn is up. */
  setup(context: BenchContext): Promise<ScenarioSetup>;
  /** The request measured (the baseline gets the same one). */
  cairn: BenchRequest;
  baseline: {
    start(context: BenchContext): Promise<RunningBaseline>;
  };
  targets: Targets;
}
