/**
 * One service as its own process (`node services/<name>/dist/main.js`, one container or pod): reads the
 * configuration, joins the bus (NATS when `[bus] URL` is set, else the in-process bus on the database),
 * serves `/metrics` when `[metrics] ENABLED`, starts the service, and on SIGTERM / SIGINT stops it gracefully,
 * then the bus, then the metrics server. Every line it writes is JSON on stdout. `startGrpcService` (grpc-service.ts)
 * is the start-up and stop every gRPC service's `start` shares, whichever process runs it; `startClaimLoop`
 * (claim-loop.ts) the worker loop of services that lease jobs from PostgreSQL.
 */
import { type Bus, openConfiguredBus } from '@cairn/bus';
import { type CairnConfig, loadConfig } from '@cairn/config';
import { type Logger, createLogger } from '@cairn/log';
import { type MetricsServer, startMetricsServer } from '@cairn/metrics';
import { type Keyring, installKeyring, isIdentity, loadKeyring } from '@cairn/rpc';

export { type GrpcServiceSetUp, type GrpcServiceSpec, type ServedServer, startGrpcService } from './grpc-service';
export { type ClaimLoop, type ClaimLoopOptions, startClaimLoop } from './claim-loop';

/** What every service's `start` takes. */
export interface ServiceStartOptions {
  config: CairnConfig;
  logger: Logger;
  bus: Bus;
  /** `host:port` to bind instead of the configured one; port 0 picks a free port. */
  listen?: string;
  /** Runs right before the server binds: the supervisor frees the port it held for the service there. */
  beforeListen?: () => Promise<void>;
}

/** A started service, in whatever process runs it (its own, the supervisor's, a test's). */
export interface RunningService {
  name: string;
  /** The bound port (gRPC, or HTTP for the gateway). */
  port: number;
  /** Graceful shutdown: stops taking work, finishes what is in flight, then releases what it holds. */
  stop(): Promise<void>;
}

export interface StandaloneService {
  /** The service's name, in log lines and messages. */
  name: string;
  /** Whether the service keeps data of its own (then `[database] URL` must be set: only the supervisor starts the embedded PostgreSQL). */
  needsDatabase: boolean;
  start(options: ServiceStartOptions): Promise<RunningService>;
}

/** The keys of a service running alone: its own private key must be there, or it could call nothing. */
function identityKeyring(keysDir: string, name: string): Keyring {
  const keyring = loadKeyring(keysDir);
  if (!isIdentity(name) || !keyring.canSignAs(name)) {
    throw new Error(
      `no private key for the service identity "${name}" in ${keysDir} ([rpc] KEYS_DIR): create the keys with ` +
        '`npm run cairn -- keys generate --dir <dir>` (docs/security.md)',
    );
  }
  return keyring;
}

async function run(service: StandaloneService, logger: Logger): Promise<void> {
  const { config, warnings } = loadConfig();
  logger.level = config.log.level;
  for (const warning of warnings) logger.warn(warning);
  installKeyring(identityKeyring(config.rpc.keysDir, service.name));
  if (config.database.url === '' && (service.needsDatabase || config.bus.url === '')) {
    throw new Error(`[database] URL must be set to run ${service.name} on its own`);
  }
  const metrics: MetricsServer | undefined = config.metrics.enabled
    ? await startMetricsServer({ listen: config.metrics.listen, token: config.metrics.token, logger })
    : undefined;
  const bus: Bus = await openConfiguredBus(config.bus, { databaseUrl: config.database.url, logger, name: service.name });
  const running = await service.start({ config, logger, bus }).catch(async (error: unknown) => {
    await bus.close();
    await metrics?.stop();
    throw error;
  });
  logger.info({ port: running.port }, `${service.name} started`);

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${service.name} stopping`);
    running
      .stop()
      .then(() => bus.close())
      .then(() => metrics?.stop())
      .then(
        () => {
          logger.info(`${service.name} stopped`);
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, `${service.name} did not stop cleanly`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** Runs `service` until a signal stops it; a start-up failure is logged and exits 1. */
export function runStandalone(service: StandaloneService): void {
  const logger = createLogger({ service: service.name });
  run(service, logger).catch((error: unknown) => {
    logger.fatal({ err: error }, `${service.name} failed to start`);
    process.exit(1);
  });
}
