/**
 * JetStream streams an installation on the machine's NATS leaves behind: a test that runs one (`[bus] URL` and a
 * `[bus] PREFIX` of its own) deletes them when it ends. Each stream reserves its `max_bytes` of the server's file
 * store, so leftovers from many runs end in "insufficient storage resources available" for everyone.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { testNatsUrl } from '@cairn/testing';

/** Deletes every stream of the installations with these `[bus] PREFIX`es (`<PREFIX>_*`, upper-cased as the bus names them). */
export async function deleteStreamsOf(prefixes: readonly string[]): Promise<void> {
  const nc = await connect({ servers: testNatsUrl() });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const info of jsm.streams.list()) {
      if (prefixes.some((prefix) => info.config.name.startsWith(`${prefix.toUpperCase()}_`))) await jsm.streams.delete(info.config.name);
    }
  } finally {
    await nc.close();
  }
}
