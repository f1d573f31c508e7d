/**
 * The standard gRPC health service (grpc.health.v1.Health, from grpc-health-check): the server side keeps
 * one status for '' (the whole server) and one per added service; the client side is what the supervisor
 * and tests use to know a process is ready.
 */
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, service as healthService } from 'grpc-health-check';
import { CairnError, Code } from './errors';

export interface ServerHealth {
  /** Starts reporting on a service name, with the current serving state. */
  track(serviceName: string): void;
  setServing(serving: boolean): void;
}

/** Registers the health service on a server; everything starts NOT_SERVING. */
export function attachHealth(server: grpc.Server): ServerHealth {
  const names = new Set<string>(['']);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  let serving = false;
  const status = () => (serving ? 'SERVING' : 'NOT_SERVING');
  return {
    track(serviceName) {
      names.add(serviceName);
      health.setStatus(serviceName, status());
    },
    setServing(value) {
      serving = value;
      for (const name of names) health.setStatus(name, status());
    },
  };
}

const CHECK = healthService.Check;
const CHECK_TIMEOUT_MS = 1000;
const POLL_INTERVAL_MS = 100;

/** Short reconnect backoff: a poller waiting for a server to come up must notice it quickly. */
function healthChannel(target: string): grpc.Client {
  return new grpc.Client(target, grpc.credentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1000,
  });
}

function isServing(response: unknown): boolean {
  return typeof response === 'object' && response !== null && (response as { status?: unknown }).status === 'SERVING';
}

/** A health answer: serving, or why not (for probes to report, not only to count). */
export type HealthProbe = { serving: true } | { serving: false; reason: string };

function statusOf(response: unknown): string {
  const status = typeof response === 'object' && response !== null ? (response as { status?: unknown }).status : undefined;
  return typeof status === 'string' ? status : 'no status';
}

/** One Check call; any failure (refused, unknown service, timeout) reads as "not serving", with the failure as reason. */
function probeOnce(client: grpc.Client, service: string, timeoutMs: number): Promise<HealthProbe> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      CHECK.path,
      CHECK.requestSerialize,
      CHECK.responseDeserialize,
      { service },
      new grpc.Metadata(),
      { deadline: new Date(Date.now() + timeoutMs) },
      (error, response) => {
        if (error !== null) resolve({ serving: false, reason: `${grpc.status[error.code] ?? error.code}: ${error.details || error.message}` });
        else if (isServing(response)) resolve({ serving: true });
        else resolve({ serving: false, reason: `reports ${statusOf(response)}` });
      },
    );
  });
}

async function checkOnce(client: grpc.Client, service: string, timeoutMs: number): Promise<boolean> {
  return (await probeOnce(client, service, timeoutMs)).serving;
}

export interface HealthCheckOptions {
  /** Service name to ask about; default '' (the whole server). */
  service?: string;
  /** How long the answer may take; default 1000 ms. */
  timeoutMs?: number;
}

export interface HealthClient {
  /** Whether the target reports SERVING. Never throws: refused, unknown service or too slow is `false`. */
  check(options?: HealthCheckOptions): Promise<boolean>;
  /** As `check`, with the reason when not serving (the gRPC failure or the reported status). Never throws. */
  probe(options?: HealthCheckOptions): Promise<HealthProbe>;
  close(): void;
}

/**
 * A health client that keeps its channel, for callers that ask again and again (the gateway's
 * `/api/healthz`): no new connection per check, and a restarted server is found again within a second.
 */
export function createHealthClient(target: string): HealthClient {
  const channel = healthChannel(target);
  return {
    check: (options = {}) => checkOnce(channel, options.service ?? '', options.timeoutMs ?? CHECK_TIMEOUT_MS),
    probe: (options = {}) => probeOnce(channel, options.service ?? '', options.timeoutMs ?? CHECK_TIMEOUT_MS),
    close: () => channel.close(),
  };
}

/** Whether `target` reports SERVING for `service` ('' = the whole server), over a channel of its own. Never throws. */
export async function checkHealth(target: string, service = '', timeoutMs = CHECK_TIMEOUT_MS): Promise<boolean> {
  const client = createHealthClient(target);
  try {
    return await client.check({ service, timeoutMs });
  } finally {
    client.close();
  }
}

export interface WaitForReadyOptions {
  timeoutMs: number;
  /** Service name to wait for; default '' (the whole server). */
  service?: string;
}

/**
 * Polls the health service until `target` reports SERVING; rejects with CairnError UNAVAILABLE after the
 * timeout. Accepts a bare timeout in milliseconds as well.
 */
export async function waitForReady(target: string, options: WaitForReadyOptions | number): Promise<void> {
  const { timeoutMs, service = '' } = typeof options === 'number' ? { timeoutMs: options } : options;
  const giveUpAt = Date.now() + timeoutMs;
  const client = healthChannel(target);
  try {
    for (;;) {
      const remaining = giveUpAt - Date.now();
      if (remaining <= 0) break;
      if (await checkOnce(client, service, Math.min(CHECK_TIMEOUT_MS, remaining))) return;
      const pause = Math.min(POLL_INTERVAL_MS, giveUpAt - Date.now());
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } finally {
    client.close();
  }
  const what = service === '' ? target : `${service} at ${target}`;
  throw new CairnError(Code.UNAVAILABLE, `${what} is not ready after ${timeoutMs} ms`);
}
