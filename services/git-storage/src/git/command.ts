/**
 * The one way git-storage runs git (Gitaly's command factory): every invocation goes through `gitCommand` or
 * `runGit`, with a fixed environment (no user or system config, no terminal prompts, C locale) so a host's git
 * settings never change what Cairn does. Callers put `--end-of-options` before values that come from users
 * and validate ref names and paths first (refs.ts, paths.ts).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { CairnError } from '@cairn/rpc';

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
}

/**
 * `-c` settings applied to every invocation. (Not `core.fsyncObjectFiles`: it is git's default already, and git
 * 2.36+ warns that it is deprecated on every run — pushers would see the warning as `remote:` lines.)
 */
const BASE_CONFIG = ['-c', 'core.quotePath=false', '-c', 'gc.auto=0'];

function argv(args: readonly string[], options: GitOptions): string[] {
  const dir = options.gitDir === undefined ? [] : [`--git-dir=${options.gitDir}`];
  return [...dir, ...BASE_CONFIG, ...args];
}

/** A streaming git process (upload-pack, receive-pack, archive, cat-file --batch). The caller owns its streams. */
export function gitCommand(args: readonly string[], options: GitOptions = {}): ChildProcessByStdio<Writable, Readable, Readable> {
  return spawn('git', argv(args, options), {
    cwd: options.cwd ?? options.gitDir,
    env: gitEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    signal: options.signal,
  });
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
    const child = gitCommand(args, options);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(CairnError.internal('git failed to start', { cause: error })));
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
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
