/**
 * The two bus adapters the consumer tests run on, each with how to delete the streams a test file made (NATS
 * keeps them on the shared server; the in-process bus keeps them in the test database, dropped with it).
 */
import { type Bus, connectNatsBus, createInProcessBus } from '@cairn/bus';
import type { Logger } from '@cairn/log';
import { testNatsUrl } from '@cairn/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/** Deletes the streams whose names start with `prefix` on the shared NATS server. */
async function deleteNatsStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: testNatsUrl() });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const info of jsm.streams.list()) if (info.config.name.startsWith(prefix)) await jsm.streams.delete(info.config.name);
  } finally {
    await nc.close();
  }
}

export type BusAdapter = [
  name: string,
  connectBus: (databaseUrl: string) => Promise<Bus>,
  deleteStreams: (prefix: string) => Promise<void>,
];

export function busAdapters(logger: Logger): BusAdapter[] {
  return [
    ['in-process', (url) => createInProcessBus({ url, logger }), async () => {}],
    ['NATS', () => connectNatsBus({ url: testNatsUrl(), logger }), deleteNatsStreams],
  ];
}
