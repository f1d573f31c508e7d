/**
 * Runs notifications as its own process: `node services/notifications/dist/main.js`. Reads the configuration,
 * joins the bus (NATS when `[bus] URL` is set, else the in-process bus on the database), serves `/metrics`
 * when `[metrics] ENABLED`, and on SIGTERM / SIGINT stops gracefully (see `start`), then the bus, then the
 * metrics server.
 */
import { connectNatsBus, createInProcessBus, type Bus } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { createLogger, type Logger } from '@cairn/log';
import { type MetricsServer, startMetricsServer } from '@cairn/metrics';
import { SERVICE_NAME, start } from './index';

async function main(logger: Logger): Promise<void> {
  const { config, warnings } = loadConfig();
  logger.level = config.log.level;
  for (const warning of warnings) logger.warn(warning);
  if (config.database.url === '') {
    // Only the supervisor starts the embedded PostgreSQL; a lone service needs a real server.
    throw new Error('[database] URL must be set to run notifications on its own');
  }
  const metrics: MetricsServer | undefined = config.metrics.enabled
    ? await startMetricsServer({ listen: config.metrics.listen, token: config.metrics.token, logger })
    : undefined;
  const bus: Bus = config.bus.url
    ? await connectNatsBus({ url: config.bus.url, logger })
    : await createInProcessBus({ url: config.database.url, logger });
  const service = await start({ config, logger, bus }).catch(async (error: unknown) => {
    await bus.close();
    throw error;
  });
  logger.info({ port: service.port }, 'notifications started');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'notifications stopping');
    service
      .stop()
      .then(() => bus.close())
      .then(() => metrics?.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'notifications did not stop cleanly');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

const logger = createLogger({ service: SERVICE_NAME });
main(logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'notifications failed to start');
  process.exit(1);
});
