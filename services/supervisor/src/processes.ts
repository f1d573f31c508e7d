/**
 * Operating-system process helpers: liveness that survives pid reuse, waiting for exit, escalating
 * termination, and free loopback ports. Linux reads /proc; elsewhere only `kill(pid, 0)` is used.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as net from 'node:net';

/** A process as recorded in a lock or runtime file: the pid plus its start time, so a reused pid is not mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); absent where /proc is not available. */
  startTicks?: string;
}

export interface ProcStat {
  /** One letter: R, S, D, Z (zombie), T … */
  state: string;
  startTicks: string;
}

/** Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so fields are counted after the last ')'. */
export function parseProcStat(text: string): ProcStat | undefined {
  const end = text.lastIndexOf(')');
  if (end < 0) return undefined;
  const fields = text.slice(end + 1).trim().split(/\s+/);
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const state = fields[0];
  const startTicks = fields[19];
  if (state === undefined || startTicks === undefined) return undefined;
  return { state, startTicks };
}

function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists and is not a zombie (a killed child that nobody reaped is dead for us). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user (e.g. the embedded PostgreSQL's own user).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  return stat === undefined || stat.state !== 'Z';
}

/** The identity of a running process (this one by default). */
export function processIdentity(pid: number = process.pid): ProcessIdentity {
  const stat = readProcStat(pid);
  return stat === undefined ? { pid } : { pid, startTicks: stat.startTicks };
}

/** Whether the recorded process is still the one running under that pid. */
export function isSameProcessAlive(identity: ProcessIdentity): boolean {
  if (!isProcessAlive(identity.pid)) return false;
  if (identity.startTicks === undefined) return true;
  const stat = readProcStat(identity.pid);
  return stat === undefined || stat.startTicks === identity.startTicks;
}

/**
 * The argument vector of a process, or undefined when it is gone or cannot be read. Without /proc (macOS)
 * `ps` gives the command line as one string, split on spaces.
 */
export function processCommandLine(pid: number): string[] | undefined {
  try {
    if (existsSync('/proc/self/cmdline')) {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part.length > 0);
    }
    const line = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return line === '' ? undefined : line.split(/\s+/);
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the process is gone; true if it exited within the timeout. */
export async function waitForProcessExit(pid: number, timeoutMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= giveUpAt) return false;
    await sleep(50);
  }
  return true;
}

/** Sends each signal in turn, waiting its time for the process to exit; true once it is gone. */
export async function terminateProcess(pid: number, steps: Array<[NodeJS.Signals, number]>): Promise<boolean> {
  for (const [signal, waitMs] of steps) {
    if (!isProcessAlive(pid)) return true;
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
      throw error;
    }
    if (await waitForProcessExit(pid, waitMs)) return true;
  }
  return !isProcessAlive(pid);
}

/** Lowest port `freeLoopbackPort` picks: above the well-known and common service ports. */
const LOW_PORT = 10_000;
const PICK_ATTEMPTS = 64;

/**
 * Where the kernel takes ephemeral ports from (outgoing connections' local ports, `listen(0)`): Linux's
 * `ip_local_port_range`, else the range most systems use.
 */
export function ephemeralPortRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > LOW_PORT) return { low, high };
  } catch {
    // Not Linux: fall through.
  }
  return { low: 32_768, high: 60_999 };
}

/** A listener on `127.0.0.1:port` (0: the kernel's choice), or undefined when the port is taken. */
function tryHold(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** A loopback port this process holds open until `release`, so no other process picks it in the meantime. */
export interface PortReservation {
  port: number;
  /** Closes the placeholder listener (once; later calls wait for the same close). Call it right before the real server binds. */
  release(): Promise<void>;
}

/**
 * Reserves a free loopback port for a server that binds it later. The port is taken below the ephemeral range: a
 * port from `listen(0)` can be handed out again as the local port of any outgoing connection (to PostgreSQL, NATS,
 * a peer service) before its server binds it. Holding the port until `release` closes the other window: another
 * instance starting side by side picking the same port between this pick and the bind (EADDRINUSE at start-up).
 * Falls back to `listen(0)` when no port below the range is free.
 */
export async function reserveLoopbackPort(): Promise<PortReservation> {
  const { low } = ephemeralPortRange();
  let server: net.Server | undefined;
  for (let attempt = 0; attempt < PICK_ATTEMPTS && server === undefined; attempt++) {
    server = await tryHold(LOW_PORT + Math.floor(Math.random() * (low - LOW_PORT)));
  }
  server ??= await tryHold(0);
  if (server === undefined) throw new Error('no free loopback port');
  const held = server;
  const port = (held.address() as net.AddressInfo).port;
  let released: Promise<void> | undefined;
  return { port, release: () => (released ??= new Promise((resolve) => held.close(() => resolve()))) };
}

/** A loopback port that was free a moment ago, for a server that binds it soon (see reserveLoopbackPort, which also closes the wait). */
export async function freeLoopbackPort(): Promise<number> {
  const reservation = await reserveLoopbackPort();
  await reservation.release();
  return reservation.port;
}

/** Rejects with a message naming the address when `host:port` cannot be bound (another program has it). */
export function assertPortFree(host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be used (${error.message})`;
      reject(new Error(`${what} ${host === '' ? '*' : host}:${port} ${reason}`));
    });
    server.listen(port, host === '' ? undefined : host, () => server.close(() => resolve()));
  });
}
