/**
 * End-to-end helpers: run the BUILT system the way people run it (`node services/supervisor/dist/main.js`,
 * `node services/cli/dist/main.js`) on a fresh work dir, wait for readiness through the runtime file, and
 * clean up every process afterwards — including what a killed supervisor leaves behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freeLoopbackPort } from '@cairn/supervisor';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SUPERVISOR_MAIN = path.join(ROOT, 'services', 'supervisor', 'dist', 'main.js');
export const CLI_MAIN = path.join(ROOT, 'services', 'cli', 'dist', 'main.js');

/** The e2e tests run the built code: say so plainly when it is missing. */
function requireBuilt(script: string): string {
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: build first (npx turbo run build)`);
  return script;
}

/** What e2e tests read from `$CAIRN_WORK_DIR/run/cairn.json` (services/supervisor/src/runtime-file.ts). */
export interface Runtime {
  supervisor: { pid: number };
  state: 'starting' | 'ready';
  httpUrl: string;
  databaseUrl: string;
  embeddedDatabase: boolean;
  busUrl: string;
  mode: 'single-process' | 'processes';
  services: Record<string, { addr?: string; port?: number; process?: { pid: number } }>;
}

export function runtimePath(workDir: string): string {
  return path.join(workDir, 'run', 'cairn.json');
}

export function readRuntime(workDir: string): Runtime | undefined {
  try {
    return JSON.parse(fs.readFileSync(runtimePath(workDir), 'utf8')) as Runtime;
  } catch {
    return undefined;
  }
}

/**
 * A fresh work dir. mkdtemp makes 0700 directories, which the embedded PostgreSQL's own user could not
 * enter when the tests run as root: open it up like an ordinary directory.
 */
export function makeWorkDir(prefix = 'cairn-e2e-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return path.join(dir, 'work');
}

/**
 * The environment the tests run `git` in: no system or user configuration but `home`'s, never a prompt, commits by
 * `author`.
 */
export function gitTestEnv(home: string, author = { name: 'Alice', email: 'alice@example.com' }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
}

/** Only what the instance needs: no CAIRN_* settings leak in from the shell running the tests. */
export function baseEnv(workDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, CAIRN_WORK_DIR: workDir, CAIRN__log__LEVEL: 'warn', ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Instance {
  workDir: string;
  child: ChildProcess;
  runtime: Runtime;
  httpUrl: string;
  exited: Promise<Exit>;
  /** Everything the supervisor (and its children) printed so far. */
  output(): string;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<Exit>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `promise` at most `ms`, leaving no timer behind (a pending one would keep jest from exiting). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Starts the supervisor and resolves once its runtime file says ready. */
export async function startInstance(workDir: string, env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<Instance> {
  const child = spawn(process.execPath, [requireBuilt(SUPERVISOR_MAIN)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exit: Exit | undefined;
  void exited.then((value) => (exit = value));
  const runtime = await waitFor(
    'the supervisor to be ready',
    () => {
      if (exit !== undefined) throw new Error(`the supervisor exited (${JSON.stringify(exit)}) before it was ready:\n${output}`);
      const runtime = readRuntime(workDir);
      return runtime?.state === 'ready' && runtime.supervisor.pid === child.pid ? runtime : undefined;
    },
    timeoutMs,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output}`);
  });
  return {
    workDir,
    child,
    runtime,
    httpUrl: runtime.httpUrl,
    exited,
    output: () => output,
    stop: async () => {
      if (exit === undefined) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the supervisor expecting it to fail: its exit and output. */
/** Runs the supervisor (of the checkout at `checkout`, this one by default) until it exits. */
export function runSupervisorToExit(env: NodeJS.ProcessEnv, checkout = ROOT): Promise<Exit & { output: string }> {
  const main = path.join(checkout, path.relative(ROOT, SUPERVISOR_MAIN));
  return runNode(main, [], env).then(({ code, signal, stdout, stderr }) => ({ code, signal, output: stdout + stderr }));
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runNode(CLI_MAIN, args, env);
}

function runNode(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [requireBuilt(script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A loopback port that is free right now, chosen as the supervisor chooses its own (outside the ephemeral range). */
export const freePort: () => Promise<number> = freeLoopbackPort;

export function basicAuth(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/**
 * Stops whatever still runs for a work dir: the supervisor, child services it recorded, and an embedded
 * PostgreSQL (after a `kill -9` of a supervisor these outlive it). Then removes the directory.
 */
export async function cleanUpWorkDir(workDir: string, instances: Instance[] = []): Promise<void> {
  for (const instance of instances) {
    if (instance.child.exitCode === null && instance.child.signalCode === null) {
      instance.child.kill('SIGTERM');
      await within(instance.exited, 20_000);
      instance.child.kill('SIGKILL');
    }
  }
  const runtime = readRuntime(workDir);
  for (const service of Object.values(runtime?.services ?? {})) {
    const pid = service.process?.pid;
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  const postmaster = path.join(workDir, 'postgres', 'postmaster.pid');
  if (fs.existsSync(postmaster)) {
    const pid = Number.parseInt(fs.readFileSync(postmaster, 'utf8').split('\n')[0] ?? '', 10);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      process.kill(pid, 'SIGINT');
      await waitFor('the embedded PostgreSQL to stop', () => (isAlive(pid) ? undefined : true), 20_000).catch(() => process.kill(pid, 'SIGKILL'));
    }
  }
  fs.rmSync(path.dirname(workDir), { recursive: true, force: true });
}

export { isAlive };
