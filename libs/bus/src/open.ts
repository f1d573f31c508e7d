import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { createInProcessBus } from './in-process-bus';
import { connectNatsBus } from './nats-bus';
import type { Bus, StreamKind, StreamLimits } from './types';

export interface OpenBusOptions {
  /** The in-process bus's database (used when `[bus] URL` is empty). */
  databaseUrl: string;
  logger: Logger;
  /** NATS connection name; default `cairn`. */
  name?: string;
}

/**
 * The `[bus]` limits of each stream kind: `internal` streams within `STREAM_MAX_AGE` and `STREAM_MAX_BYTES`, `events`
 * streams within `EVENTS_MAX_AGE` and `EVENTS_MAX_BYTES`, both with `STREAM_REPLICAS` copies.
 */
export function configuredStreamLimits(settings: CairnConfig['bus']): Record<StreamKind, StreamLimits> {
  return {
    internal: { maxAgeMs: settings.streamMaxAgeMs, maxBytes: settings.streamMaxBytes, replicas: settings.streamReplicas },
    events: { maxAgeMs: settings.eventsMaxAgeMs, maxBytes: settings.eventsMaxBytes, replicas: settings.streamReplicas },
  };
}

/**
 * The bus `[bus]` configures, the one way every process opens it: NATS when `URL` is set, else the in-process bus
 * on the database; either under `PREFIX`, its streams kept within their kind's limits (configuredStreamLimits).
 */
export function openConfiguredBus(settings: CairnConfig['bus'], options: OpenBusOptions): Promise<Bus> {
  const { logger, name } = options;
  const { internal: streamLimits, events: eventStreamLimits } = configuredStreamLimits(settings);
  if (settings.url === '') return createInProcessBus({ url: options.databaseUrl, logger, prefix: settings.prefix, streamLimits, eventStreamLimits });
  return connectNatsBus({ url: settings.url, logger, name, auth: settings.auth, prefix: settings.prefix, streamLimits, eventStreamLimits });
}
