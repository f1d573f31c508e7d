/**
 * One service run as its own child process (`node services/<name>/dist/main.js`), as in production.
 * Its output goes straight to the supervisor's stdout/stderr (already JSON lines naming the service).
 * A child that exits while it should be running is restarted after a growing delay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '@cairn/log';
import { processIdentity, type ProcessIdentity } from './processes';

/** Delay before restart number `failures` (1-based): 0.5 s doubling, at most 30 s. */
export function restartDelayMs(failures: number): number {
  return Math.min(500 * 2 ** Math.max(0, failures - 1), 30_000);
}

/** A child that stayed up this long counts as healthy: its next crash restarts it quickly again. */
const STABLE_AFTER_MS = 30_000;

export interface ChildServiceOptions {
  name: string;
  /** Absolute path of the service's dist/main.js. */
  script: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  logger: Logger;
  /** Called with each new process (first start and every restart). */
  onSpawn?: (identity: ProcessIdentity) => void;
}

export class ChildService {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ChildServiceOptions) {}

  /** If the supervisor exits without stop() (a crash), its children, in their own process groups, must not live on. */
  private readonly killOnExit = () => {
    if (this.child?.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
  };

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const { name, script, env, cwd, logger } = this.options;
    // Own process group: a Ctrl-C on the terminal reaches the supervisor only, which then stops the
    // children in order (gateway first) instead of all of them at once.
    const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    const startedAt = Date.now();
    this.child = child;
    process.removeListener('exit', this.killOnExit);
    process.on('exit', this.killOnExit);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (this.child === child) this.child = undefined;
        if (this.stopping) return;
        this.failures = Date.now() - startedAt >= STABLE_AFTER_MS ? 1 : this.failures + 1;
        const delay = restartDelayMs(this.failures);
        logger.warn({ child: name, child_pid: child.pid, code, signal, restart_in_ms: delay }, `${name} exited unexpectedly; restarting it`);
        this.restartTimer = setTimeout(() => {
          this.restartTimer = undefined;
          if (!this.stopping) this.start();
        }, delay);
      });
    });
    child.once('error', (error) => logger.error({ child: name, err: error }, `${name} could not be started`));
    if (child.pid !== undefined) {
      logger.info({ child: name, child_pid: child.pid }, `${name} started`);
      this.options.onSpawn?.(processIdentity(child.pid));
    }
  }

  /** SIGTERM (the service finishes what it is doing), then SIGKILL after `graceMs`; no restart afterwards. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    process.removeListener('exit', this.killOnExit);
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => {
      this.options.logger.warn({ child: this.name, child_pid: child.pid, grace_ms: graceMs }, `${this.name} did not stop in time; killing it`);
      child.kill('SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(killTimer);
  }
}
