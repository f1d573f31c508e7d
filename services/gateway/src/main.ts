/**
 * `node services/gateway/dist/main.js`: the gateway on its own. Reads the configuration, connects the bus
 * (NATS when `[bus] URL` is set, else the in-process bus on the database), starts, and stops cleanly on
 * SIGTERM or SIGINT.
 */
import { loadConfig } from '@cairn/config';
import { connectNatsBus, createInProcessBus } from '@cairn/bus';
import { createLogger } from '@cairn/log';
import { start } from './index';

async function main(): Promise<void> {
  const { config, warnings } = loadConfig();
  const logger = createLogger({ service: 'gateway', level: config.log.level });
  for (const warning of warnings) logger.warn(warning);
  const bus =
    config.bus.url !== ''
      ? await connectNatsBus({ url: config.bus.url, logger })
      : await createInProcessBus({ url: config.database.url, logger });
  const service = await start({ config, logger, bus });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    try {
      await service.stop();
      await bus.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'stop failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
