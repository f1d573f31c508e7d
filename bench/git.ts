/**
 * The git command line as the harness (and its tests) run it: the machine's `git`, with no system or user
 * configuration (so a `~/.gitconfig` cannot change what is measured) and never prompting for credentials.
 */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface GitOptions {
  /** Runs with `--git-dir=<gitDir>`. */
  gitDir?: string;
  cwd?: string;
  /** Written to git's stdin, closed at the end (at once without it). */
  input?: Iterable<string | Buffer> | AsyncIterable<string | Buffer>;
  signal?: AbortSignal;
}

/** How much of git's stderr a failure message keeps. */
const STDERR_LIMIT = 4000;

export function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
  };
}

/** The subcommand of `args` (after any `-c key=value`), for messages: the rest may carry credentials. */
function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return '';
}

/** Runs `git <args>`; resolves with its stdout, rejects with its stderr unless it exits 0. */
export function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const fullArgs = options.gitDir === undefined ? [...args] : [`--git-dir=${options.gitDir}`, ...args];
  const child = spawn('git', fullArgs, {
    cwd: options.cwd,
    env: gitEnv(),
    stdio: 'pipe',
    signal: options.signal,
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_LIMIT)));
  // git's exit code says more than the broken pipe a failing git leaves its writer with.
  const fed = pipeline(Readable.from(options.input ?? []), child.stdin).catch(() => undefined);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  return Promise.all([exited, fed]).then(([code]) => {
    if (code !== 0) throw new Error(`git ${subcommandOf(args)} exited ${code}: ${stderr.trim()}`);
    return Buffer.concat(stdout).toString();
  });
}
