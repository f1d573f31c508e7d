/**
 * Runs the gateway's HTTP application on a real loopback port (port 0) with in-memory accounts, and captures
 * its log lines, so tests drive it over HTTP with node's fetch as a client would.
 */
import type { AddressInfo } from 'node:net';
import type { CairnConfig } from '@cairn/config';
import { createLogger } from '@cairn/log';
import { openObjectStore } from '@cairn/storage';
import { createGateway, type Gateway } from '../../src/app';
import type { GatewayBus } from '../../src/auth/invalidation';
import type { GitRepoCache } from '../../src/git/repo-cache';
import type { DependencyCheck } from '../../src/health/healthz';
import { testConfig } from './config';
import { FakeAccounts } from './fake-accounts';

export interface TestGateway {
  url: string;
  config: CairnConfig;
  accounts: FakeAccounts;
  gateway: Gateway;
  /** Parsed log lines written so far. */
  logs: Array<Record<string, unknown>>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** `CAIRN__<SECTION>__<KEY>` overrides. */
  env?: Record<string, string>;
  accounts?: FakeAccounts;
  bus?: GatewayBus;
  /** The smart HTTP repository cache; the gateway's default one when not given. */
  gitRepoCache?: GitRepoCache;
  /** What /api/healthz checks; none by default. */
  healthChecks?: DependencyCheck[];
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const config = testConfig(options.env);
  const accounts = options.accounts ?? new FakeAccounts();
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    service: 'gateway',
    level: 'info',
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const gateway = await createGateway({
    config,
    logger,
    clients: accounts.clients,
    bus: options.bus,
    gitRepoCache: options.gitRepoCache,
    healthChecks: options.healthChecks,
    objects: openObjectStore(config.attachment.storage),
  });
  const server = gateway.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    config,
    accounts,
    gateway,
    logs,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export function tokenAuth(secret: string): string {
  return `token ${secret}`;
}

/** JSON request init. */
export function jsonBody(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** The first defined result of `probe`, retried while the server finishes work after answering (e.g. its log line). */
export async function eventually<T>(probe: () => T | undefined, attempts = 100): Promise<T | undefined> {
  for (let i = 0; i < attempts; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}
