import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { createInProcessBus } from './in-process-bus';
import { connectNatsBus } from './nats-bus';
import type { Bus } from './types';

export interface OpenBusOptions {
  /** The in-process bus's database (used when `[bus] URL` is empty). */
  databaseUrl: string;
  logger: Logger;
  /** NATS connection name; default `cairn`. */
  name?: string;
}

/**
 * The bus `[bus]` configures, the one way every process opens it: NATS when `URL` is set, else the in-process bus
 * on the database; either under `PREFIX`, its streams kept within `STREAM_MAX_AGE` and `STREAM_MAX_BYTES`.
 */
export function openConfiguredBus(settings: CairnConfig['bus'], options: OpenBusOptions): Promise<Bus> {
  const { logger, name } = options;
  const streamLimits = { maxAgeMs: settings.streamMaxAgeMs, maxBytes: settings.streamMaxBytes };
  if (settings.url === '') return createInProcessBus({ url: options.databaseUrl, logger, prefix: settings.prefix, streamLimits });
  return connectNatsBus({ url: settings.url, logger, name, auth: settings.auth, prefix: settings.prefix, streamLimits });
}
