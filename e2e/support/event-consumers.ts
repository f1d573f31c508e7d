/**
 * The public event stream's consumers as teams run them, as child processes: the built `cairn events tail` and the
 * compiled examples/issues-mirror. Each start waits for the process's line saying it follows the stream, so events a
 * test publishes afterwards are ones it must see.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@cairn/testing';
import { CLI_MAIN, ROOT } from './instance';

export interface ConsumerRun {
  child: ChildProcess;
  /** Standard output's lines so far. */
  lines(): string[];
  /** Standard error so far. */
  errors(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running: ConsumerRun[] = [];

/** Kills whatever a test left running (call in afterAll). */
export function killConsumers(): void {
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
}

async function startConsumer(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: (out: string, err: string) => boolean): Promise<ConsumerRun> {
  const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run: ConsumerRun = {
    child,
    lines: () => out.split('\n').filter((line) => line !== ''),
    errors: () => err,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
  running.push(run);
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`${path.basename(script)} exited ${child.exitCode}: ${out}${err}`);
    if (!ready(out, err)) throw new Error(`${path.basename(script)} is not following yet`);
  });
  return run;
}

/** `cairn events tail …` (the built CLI) with these `[bus]` settings (`CAIRN__bus__…`), once it follows. */
export function startTail(args: string[], env: NodeJS.ProcessEnv): Promise<ConsumerRun> {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: build first (npx turbo run build)`);
  return startConsumer(CLI_MAIN, ['events', 'tail', ...args], ROOT, { ...process.env, ...env }, (_out, err) => err.includes('cairn: following '));
}

/** Runs `cairn events tail …` to its end (a refusal or failure). */
export async function tailOutcome(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI_MAIN, 'events', 'tail', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  return { code, stderr };
}

export const EXAMPLE_DIR = path.join(ROOT, 'examples', 'issues-mirror');

/** Compiles examples/issues-mirror as its README says (`npm run build`: tsc), with the repository's TypeScript. */
export function buildExample(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(EXAMPLE_DIR, 'tsconfig.json')], { stdio: 'inherit' });
}

/** The compiled example with only the environment it documents, once it consumes. */
export function startExample(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ConsumerRun> {
  return startConsumer(path.join(EXAMPLE_DIR, 'dist', 'main.js'), args, EXAMPLE_DIR, { PATH: process.env.PATH, ...env }, (out) => out.includes('mirroring issues of '));
}
