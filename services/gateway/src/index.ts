/**
 * The gateway service: Gitea's REST API (`/api/v1`) and its description, in front of the gRPC services.
 * `start` runs it on `[server] HTTP_ADDR:HTTP_PORT` (or `listen`), calling each gRPC service at
 * `[services.<name>] ADDR`.
 */
import type { AddressInfo } from 'node:net';
import { guardBroadcasts } from '@cairn/bus';
import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import type { RunningService } from '@cairn/service';
import { openObjectStore } from '@cairn/storage';
import { type Gateway, createGateway } from './app';
import { BUS_USAGE } from './bus-usage';
import type { GatewayBus } from './auth/invalidation';
import { createServiceClients } from './clients';
import { grpcDependencyChecks } from './health/grpc-checks';
import { drainable } from './http/drain';

export { createGateway, type Gateway, type GatewayDependencies } from './app';
export type { GatewayClients, TokensClient, UsersClient } from './clients';
export { TokenCache, type TokenCacheOptions } from './auth/token-cache';
export type { GatewayBus } from './auth/invalidation';
export { cairnVersion } from './version';
export { BUS_USAGE } from './bus-usage';
export { HEALTH_CONTENT_TYPE, type DependencyCheck, type HealthReport } from './health/healthz';

export interface StartOptions {
  config: CairnConfig;
  logger: Logger;
  bus: GatewayBus;
  /** `host:port` to listen on instead of the configuration's; port 0 picks a free one. */
  listen?: string;
  /** Runs right before the server binds: the supervisor frees the port it held for the gateway there. */
  beforeListen?: () => Promise<void>;
}

export type { RunningService };

/** `host:port`, `[v6]:port` or `:port`. */
function parseListen(listen: string): { host: string | undefined; port: number } {
  const colon = listen.lastIndexOf(':');
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(listen.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid listen address "${listen}"`);
  return { host: host === '' ? undefined : host, port };
}

/** How long stop() lets requests in flight finish before closing their connections. */
const STOP_GRACE_MS = 5_000;

/**
 * Runs the gateway. stop() is the graceful shutdown SIGTERM asks for: the listener closes (no new
 * connections), idle keep-alive connections close at once, requests in flight finish (for up to 5 s) and
 * their connections close after the answer, then the event subscriptions, the service clients and the object store
 * close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the gateway's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBroadcasts(options.bus, BUS_USAGE);
  const { host, port } = parseListen(options.listen ?? `${config.server.httpAddr}:${config.server.httpPort}`);
  const clients = createServiceClients(config, logger);
  const health = grpcDependencyChecks(config);
  const objects = openObjectStore(config.attachment.storage);
  const closeClients = () => {
    health.close();
    clients.close();
    objects.close().catch((error: unknown) => logger.warn({ err: error }, 'could not close the object store'));
  };
  let gateway: Gateway;
  try {
    gateway = await createGateway({ config, logger, clients, bus, healthChecks: health.checks, objects });
  } catch (error) {
    closeClients();
    throw error;
  }
  const server = drainable(gateway.createServer());
  try {
    await options.beforeListen?.();
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(port, host, () => {
        server.http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await gateway.close();
    closeClients();
    throw error;
  }
  const bound = (server.http.address() as AddressInfo).port;
  logger.info({ port: bound }, 'gateway listening');

  let stopping: Promise<void> | undefined;
  return {
    name: 'gateway',
    port: bound,
    stop: () =>
      (stopping ??= (async () => {
        await server.drain(STOP_GRACE_MS);
        await gateway.close();
        closeClients();
      })()),
  };
}
