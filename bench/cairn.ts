/**
 * The Cairn under test: the BUILT supervisor (`node services/supervisor/dist/main.js`), the way people run
 * it, on the bench database and the machine's NATS (so every service is its own process), on a fresh work
 * dir; readiness read from `$CAIRN_WORK_DIR/run/cairn.json`. Also the CLI and plain HTTP for seeding.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { captureOutput, exitOf, isAlive, sleep, terminate, type Exit } from './child-process';
import { CLI_MAIN, DIST_DIR, ROOT, SUPERVISOR_MAIN } from './paths';

export interface CairnOptions {
  databaseUrl: string;
  natsUrl: string;
  poolSize: number;
  rootUrl: string;
  /** Write CPU profiles of every Cairn process here. */
  profileDir?: string;
  signal: AbortSignal;
}

export interface CairnInstance {
  url: string;
  /** A service's process id (every service is its own process on NATS). */
  servicePid(name: string): number;
  /** The services that run as processes. */
  serviceNames(): string[];
  /** Runs the CLI against this instance; rejects unless it exits 0. */
  cli(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** The part of the supervisor's runtime file (services/supervisor/src/runtime-file.ts) the harness reads. */
interface Runtime {
  supervisor: { pid: number };
  state: 'starting' | 'ready';
  httpUrl: string;
  services: Record<string, { process?: { pid: number } }>;
}

const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 30_000;

function readRuntime(workDir: string): Runtime | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(workDir, 'run', 'cairn.json'), 'utf8')) as Runtime;
  } catch {
    return undefined;
  }
}

function requireBuilt(script: string): string {
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first`);
  return script;
}

export async function startCairn(options: CairnOptions): Promise<CairnInstance> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-'));
  // Only what the instance needs: no CAIRN_* settings leak in from the shell.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CAIRN_WORK_DIR: workDir,
    CAIRN__database__URL: options.databaseUrl,
    CAIRN__database__MAX_OPEN_CONNS: String(options.poolSize),
    CAIRN__bus__URL: options.natsUrl,
    CAIRN__server__HTTP_PORT: '0',
    CAIRN__server__ROOT_URL: options.rootUrl,
    CAIRN__log__LEVEL: 'warn',
    // The webhook-latency scenario's receiver listens on loopback, which the default policy (`external`) refuses.
    CAIRN__webhook__ALLOWED_HOST_LIST: 'loopback',
    // The migrate-issues scenario imports from this instance itself (loopback), which `[migrations]` refuses by default.
    CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true',
  };
  const serviceEnv: NodeJS.ProcessEnv =
    options.profileDir === undefined
      ? env
      : { ...env, NODE_OPTIONS: `--require "${path.join(DIST_DIR, 'profile.js')}"`, CAIRN_BENCH_PROFILE_DIR: options.profileDir };
  const child = spawn(process.execPath, [requireBuilt(SUPERVISOR_MAIN)], {
    cwd: ROOT,
    env: serviceEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a Ctrl-C reaches the harness only, which stops things in order.
    detached: true,
  });
  const output = captureOutput(child);
  let exit: Exit | undefined;
  void exitOf(child).then((value) => (exit = value));

  /** `quiet`: the caller reports the output itself. */
  const stop = async (quiet = false): Promise<void> => {
    const runtime = readRuntime(workDir);
    const result = await terminate(child, STOP_GRACE_MS);
    // A supervisor that had to be killed leaves its service processes behind.
    for (const service of Object.values(runtime?.services ?? {})) {
      const pid = service.process?.pid;
      if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(workDir, { recursive: true, force: true });
    if (result.code !== 0 && !quiet) process.stderr.write(`bench: the supervisor exited ${JSON.stringify(result)}:\n${output()}\n`);
  };

  try {
    const giveUpAt = Date.now() + READY_TIMEOUT_MS;
    let runtime = readRuntime(workDir);
    while (!(runtime?.state === 'ready' && runtime.supervisor.pid === child.pid)) {
      options.signal.throwIfAborted();
      if (exit !== undefined) throw new Error(`the supervisor exited (${JSON.stringify(exit)}) before it was ready:\n${output()}`);
      if (Date.now() > giveUpAt) throw new Error(`the supervisor was not ready within ${READY_TIMEOUT_MS} ms:\n${output()}`);
      await sleep(100);
      runtime = readRuntime(workDir);
    }
    const url = runtime.httpUrl.replace(/\/$/, '');
    const servicePid = (name: string): number => {
      const pid = readRuntime(workDir)?.services[name]?.process?.pid;
      if (pid === undefined) throw new Error(`the supervisor's runtime file names no process for ${name}`);
      return pid;
    };
    const serviceNames = (): string[] =>
      Object.entries(readRuntime(workDir)?.services ?? {})
        .filter(([, service]) => service.process?.pid !== undefined)
        .map(([name]) => name);
    return { url, servicePid, serviceNames, cli: (args) => runCli(args, env), stop: () => stop() };
  } catch (error) {
    await stop(true);
    throw error;
  }
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [requireBuilt(CLI_MAIN), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = captureOutput(child);
    child.once('error', reject);
    void exitOf(child).then((exit) => {
      if (exit.code === 0) resolve(output());
      else reject(new Error(`cairn ${args.slice(0, 3).join(' ')} … exited ${JSON.stringify(exit)}:\n${output()}`));
    });
  });
}

export interface HttpAnswer {
  status: number;
  body: string;
}

export async function httpRequest(
  url: string,
  request: { method: string; headers?: Readonly<Record<string, string>>; body?: string },
): Promise<HttpAnswer> {
  const response = await fetch(url, { method: request.method, headers: { ...request.headers }, body: request.body });
  return { status: response.status, body: await response.text() };
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
