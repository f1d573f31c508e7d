/**
 * `node services/gateway/dist/main.js`: the gateway on its own. Reads the configuration, connects the bus
 * (NATS when `[bus] URL` is set, else the in-process bus on the database), starts, serves `/metrics` when
 * `[metrics] ENABLED`, and on SIGTERM or SIGINT stops gracefully (see `start`), then the bus, then the
 * metrics server. Every line it writes is JSON on stdout.
 */
import { type Bus, connectNatsBus, createInProcessBus } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { createLogger, type Logger } from '@cairn/log';
import { type MetricsServer, startMetricsServer } from '@cairn/metrics';
import { start } from './index';

async function main(logger: Logger): Promise<void> {
  const { config, warnings } = loadConfig();
  logger.level = config.log.level;
  for (const warning of warnings) logger.warn(warning);
  const metrics: MetricsServer | undefined = config.metrics.enabled
    ? await startMetricsServer({ listen: config.metrics.listen, token: config.metrics.token, logger })
    : undefined;
  const bus: Bus =
    config.bus.url !== ''
      ? await connectNatsBus({ url: config.bus.url, logger })
      : await createInProcessBus({ url: config.database.url, logger });
  const service = await start({ config, logger, bus }).catch(async (error: unknown) => {
    await bus.close();
    throw error;
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    try {
      await service.stop();
      await bus.close();
      await metrics?.stop();
      logger.info('gateway stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'gateway did not stop cleanly');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

const logger = createLogger({ service: 'gateway' });
main(logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
});
