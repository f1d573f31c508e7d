/**
 * `$CAIRN_WORK_DIR/run/cairn.json`: what a running supervisor tells other local tools (the CLI, tests,
 * operators) — its pid, where the HTTP API and each service listen (and serve their metrics), the database
 * and bus in use, and the pids of its child processes. Written atomically, readable only by its owner (it holds the database URL),
 * removed on a clean stop. A file whose supervisor is gone is stale and ignored.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFileIfExists } from './files';
import { isSameProcessAlive, type ProcessIdentity } from './processes';
import { runDir } from './work-dir-lock';

export interface RuntimeService {
  /** gRPC address clients use (gRPC services). */
  addr?: string;
  /** Bound port (the gateway's HTTP port, a service's gRPC port). */
  port?: number;
  /** The child process running it (child-process mode). */
  process?: ProcessIdentity;
  /** Where its Prometheus metrics are scraped (`[metrics] ENABLED`); one URL for every service in single-process mode. */
  metricsUrl?: string;
}

export interface RuntimeInfo {
  supervisor: ProcessIdentity;
  /** 'starting' until every service is ready. */
  state: 'starting' | 'ready';
  workDir: string;
  /** Where the HTTP API answers on this machine, e.g. http://127.0.0.1:3000 */
  httpUrl: string;
  /** `[server] ROOT_URL` */
  rootUrl: string;
  databaseUrl: string;
  embeddedDatabase: boolean;
  /** `[bus] URL`; empty for the in-process bus. */
  busUrl: string;
  /** 'single-process': every service in the supervisor's process; 'processes': one child per service. */
  mode: 'single-process' | 'processes';
  services: Record<string, RuntimeService>;
  startedAt: string;
}

export function runtimeFilePath(workDir: string): string {
  return path.join(runDir(workDir), 'cairn.json');
}

function isIdentity(value: unknown): value is ProcessIdentity {
  return typeof value === 'object' && value !== null && typeof (value as { pid?: unknown }).pid === 'number';
}

export function parseRuntimeInfo(text: string): RuntimeInfo | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const info = value as Partial<RuntimeInfo>;
    if (!isIdentity(info.supervisor) || typeof info.httpUrl !== 'string' || typeof info.services !== 'object' || info.services === null) {
      return undefined;
    }
    return info as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** The runtime file as written, live or stale; undefined when missing or not a runtime file. A file that cannot be read throws. */
export function readRuntimeFile(workDir: string): RuntimeInfo | undefined {
  const text = readFileIfExists(runtimeFilePath(workDir));
  return text === undefined ? undefined : parseRuntimeInfo(text);
}

/** The runtime file of a supervisor that is still running; undefined otherwise. */
export function readLiveRuntimeFile(workDir: string): RuntimeInfo | undefined {
  const info = readRuntimeFile(workDir);
  return info !== undefined && isSameProcessAlive(info.supervisor) ? info : undefined;
}

export function writeRuntimeFile(workDir: string, info: RuntimeInfo): void {
  const file = runtimeFilePath(workDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Removes the runtime file if it belongs to `supervisorPid`. */
export function removeRuntimeFile(workDir: string, supervisorPid: number): void {
  if (readRuntimeFile(workDir)?.supervisor.pid === supervisorPid) fs.rmSync(runtimeFilePath(workDir), { force: true });
}
