/**
 * The one way git-storage runs git (Gitaly's command factory): every invocation goes through `gitCommand` or
 * `runGit`, with a fixed environment (no user or system config, no terminal prompts, C locale) so a host's git
 * settings never change what Cairn does. Callers put `--end-of-options` before values that come from users
 * and validate ref names and paths first (refs.ts, paths.ts).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { CairnError, Code } from '@cairn/rpc';

/** Environment every git process gets (plus what a caller adds). */
export function gitEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/true',
    ...extra,
  };
}

export interface GitOptions {
  /** The repository (`--git-dir`); unset for commands that take none (e.g. `git init`). */
  gitDir?: string;
  /** Extra environment (GIT_AUTHOR_*, GIT_QUARANTINE_PATH, GIT_PROTOCOL …). */
  env?: NodeJS.ProcessEnv;
  /** Working directory; default the git dir or the process's. */
  cwd?: string;
  /** Aborts (kills) the process. */
  signal?: AbortSignal;
  /** Wall-clock limit in milliseconds; default `[git.timeout] DEFAULT` (setGitProcessLimits). */
  timeoutMs?: number;
  /** Called once the process has exited (or failed to start), e.g. to free a concurrency slot at once. */
  onExit?: () => void;
}

/**
 * The node's limits on git processes (`[git.timeout]`), set once when git-storage starts: every invocation goes
 * through this factory (Gitaly's command factory), so none can run unbounded. Gitea's defaults until then.
 */
export interface GitProcessLimits {
  /** Wall-clock limit of a process whose caller names none (`[git.timeout] DEFAULT`). */
  timeoutMs: number;
  /** How long a streamed process (transfer, archive, blob) may move no byte before it is killed (`[git.timeout] IDLE`). */
  idleTimeoutMs: number;
}

let limits: GitProcessLimits = { timeoutMs: 360_000, idleTimeoutMs: 120_000 };

export function setGitProcessLimits(next: GitProcessLimits): void {
  limits = { ...next };
}

export function gitProcessLimits(): GitProcessLimits {
  return limits;
}

/** git gets SIGTERM first (it removes its lock files and temporary packs), SIGKILL if it is still there after this. */
const KILL_GRACE_MS = 5000;

/**
 * `-c` settings applied to every invocation. (Not `core.fsyncObjectFiles`: it is git's default already, and git
 * 2.36+ warns that it is deprecated on every run — pushers would see the warning as `remote:` lines.) Clients never
 * see RemoteService's staging refs (git/remote.ts STAGING_PREFIX).
 */
const BASE_CONFIG = ['-c', 'core.quotePath=false', '-c', 'gc.auto=0', '-c', 'transfer.hideRefs=refs/cairn-fetch/'];

function argv(args: readonly string[], options: GitOptions): string[] {
  const dir = options.gitDir === undefined ? [] : [`--git-dir=${options.gitDir}`];
  return [...dir, ...BASE_CONFIG, ...args];
}

export interface GitProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /**
   * Starts the idle clock (`[git.timeout] IDLE`): from then on the process is killed when `touch` was not called
   * for that long. Streaming callers touch on every chunk they write to stdin or read from stdout, so a peer that
   * stops sending or reading cannot hold the process (and its slot) for longer.
   */
  watchIdle(): void;
  touch(): void;
  /** Why Cairn killed the process (a time limit), if it did: the error to answer instead of git's exit status. */
  stopped(): CairnError | undefined;
}

/** A streaming git process (upload-pack, receive-pack, archive, cat-file --batch). The caller owns its streams. */
export function gitCommand(args: readonly string[], options: GitOptions = {}): GitProcess {
  const child = spawn('git', argv(args, options), {
    cwd: options.cwd ?? options.gitDir,
    env: gitEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    signal: options.signal,
    // Its own process group, so a time limit stops what git started too (index-pack, pack-objects, hooks): they
    // hold git's pipes and would otherwise live on, blocked on a stalled client.
    detached: true,
  });
  const timeoutMs = options.timeoutMs ?? limits.timeoutMs;
  const idleTimeoutMs = limits.idleTimeoutMs;
  let reason: CairnError | undefined;
  let lastActivity = Date.now();
  let idleTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = (error: CairnError) => {
    if (reason !== undefined || child.exitCode !== null || child.signalCode !== null) return;
    reason = error;
    killGroup('SIGTERM');
    // What is still to come (a stalled request body) is of no use any more.
    child.stdin.destroy();
    killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const wallClock = setTimeout(
    () =>
      stop(
        new CairnError(Code.DEADLINE_EXCEEDED, `git ${args.find((arg) => !arg.startsWith('-')) ?? ''} ran longer than ${timeoutMs / 1000} s and was stopped`, {
          reason: 'git_timeout',
        }),
      ),
    timeoutMs,
  );
  const checkIdle = () => {
    const idleFor = Date.now() - lastActivity;
    if (idleFor < idleTimeoutMs) {
      idleTimer = setTimeout(checkIdle, idleTimeoutMs - idleFor);
      return;
    }
    stop(
      new CairnError(Code.DEADLINE_EXCEEDED, `no data moved for ${idleTimeoutMs / 1000} s: the transfer was cut off`, {
        reason: 'git_idle_timeout',
      }),
    );
  };
  let exited = false;
  const onExit = () => {
    if (exited) return;
    exited = true;
    clearTimeout(wallClock);
    clearTimeout(idleTimer);
    clearTimeout(killTimer);
    options.onExit?.();
  };
  // 'exit', not 'close': output a stalled consumer has not taken yet must not keep the slot of a process that is gone.
  child.once('exit', onExit);
  child.once('error', onExit);
  return {
    child,
    watchIdle() {
      lastActivity = Date.now();
      if (idleTimer === undefined && !exited) idleTimer = setTimeout(checkIdle, idleTimeoutMs);
    },
    touch() {
      lastActivity = Date.now();
    },
    stopped: () => reason,
  };
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

export interface RunGitOptions extends GitOptions {
  /** Bytes written to stdin (then closed). */
  stdin?: Buffer | string;
  /** Exit codes that are answers, not failures (e.g. 1 for `merge-base --is-ancestor`). Default [0]. */
  okExitCodes?: readonly number[];
}

/**
 * Runs git to completion and collects its output (for bounded output only: lists, single objects). A failing
 * exit code rejects with INTERNAL, the stderr kept as the cause for logs.
 */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const git = gitCommand(args, options);
    const { child } = git;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) =>
      reject(
        options.signal?.aborted === true
          ? new CairnError(Code.CANCELLED, 'git was stopped: its caller went away', { cause: error })
          : CairnError.internal('git failed to start', { cause: error }),
      ),
    );
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
      const stopped = git.stopped();
      if (stopped !== undefined) {
        reject(stopped);
        return;
      }
      if (!(options.okExitCodes ?? [0]).includes(exitCode)) {
        const detail = `git ${args[0] ?? ''} exited with ${signal ?? exitCode}: ${stderr.trim()}`;
        reject(CairnError.internal('git command failed', { cause: new Error(detail) }));
        return;
      }
      resolve({ stdout: Buffer.concat(out), stderr, exitCode });
    });
    child.stdin.on('error', () => {
      // git may exit before reading all of stdin (e.g. a bad revision); its exit code tells what happened.
    });
    child.stdin.end(options.stdin);
  });
}
