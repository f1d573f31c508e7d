/**
 * What only NATS shows: the limits a producer's stream carries (`[bus] STREAM_MAX_AGE`, `STREAM_MAX_BYTES`, the
 * events kind's `EVENTS_MAX_AGE`, `EVENTS_MAX_BYTES`, `STREAM_REPLICAS`) and its duplicate window (the relay's retry
 * horizon), a durable's max_ack_pending, the subjects a newer version adds to an existing stream, and two
 * installations under different `[bus] PREFIX`es on one server, each with the same code names, apart.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { silentLogger } from '@cairn/log';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { connectNatsBus, type NatsBusOptions } from './nats-bus';
import { RELAY_RETRY_HORIZON_MS } from './relay';
import { deleteStreams } from './test-support/nats';
import { waitFor } from './test-support/wait';
import type { Bus, BusMessage, StreamLimits } from './types';
import { uuidv7 } from './uuidv7';

const prefixes = [uniqueName('lim'), uniqueName('insta'), uniqueName('instb')];
const [limits, first, second] = prefixes;
const opened: Bus[] = [];
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connect({ servers: testNatsUrl() });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((bus) => bus.close()));
});

afterAll(async () => {
  await nc?.close();
  for (const prefix of prefixes) await deleteStreams(testNatsUrl(), prefix.toUpperCase());
});

async function open(prefix: string, streamLimits?: StreamLimits, eventStreamLimits?: NatsBusOptions['eventStreamLimits']): Promise<Bus> {
  const bus = await connectNatsBus({ url: testNatsUrl(), logger: silentLogger(), requestTimeoutMs: 2_000, prefix, streamLimits, eventStreamLimits });
  opened.push(bus);
  return bus;
}

async function streamConfig(name: string) {
  return (await (await jetstreamManager(nc)).streams.info(name)).config;
}

it('gives the producer’s stream the configured limits, and updates them when they change', async () => {
  const bus = await open(limits, { maxAgeMs: 36 * 3_600_000, maxBytes: 64 * 1024 * 1024 });
  await bus.ensureStream('CAIRN_LIMITED', ['cairn.limited.>']);
  const name = `${limits.toUpperCase()}_LIMITED`;
  expect(await streamConfig(name)).toMatchObject({ subjects: [`${limits}.limited.>`], max_age: nanos(36 * 3_600_000), max_bytes: 64 * 1024 * 1024 });

  const unlimited = await open(limits, { maxAgeMs: 0, maxBytes: 0 });
  await unlimited.ensureStream('CAIRN_LIMITED', ['cairn.limited.>']);
  // JetStream's spelling of "no limit".
  expect(await streamConfig(name)).toMatchObject({ max_age: 0, max_bytes: -1 });
});

it('gives an events stream the events limits, every stream its replicas, and the relay\'s horizon as duplicate window', async () => {
  const bus = await open(limits, { maxAgeMs: 3_600_000, maxBytes: 1024, replicas: 1 }, { maxAgeMs: 720 * 3_600_000, maxBytes: 1024 ** 3, replicas: 1 });
  await bus.ensureStream('CAIRN_EVENTS_KIND', ['cairn.kind.events.>'], 'events');
  await bus.ensureStream('CAIRN_INTERNAL_KIND', ['cairn.kind.internal.>']);
  const window = nanos(RELAY_RETRY_HORIZON_MS);
  expect(await streamConfig(`${limits.toUpperCase()}_EVENTS_KIND`)).toMatchObject({
    max_age: nanos(720 * 3_600_000),
    max_bytes: 1024 ** 3,
    num_replicas: 1,
    duplicate_window: window,
    storage: 'file',
  });
  expect(await streamConfig(`${limits.toUpperCase()}_INTERNAL_KIND`)).toMatchObject({ max_age: nanos(3_600_000), max_bytes: 1024, num_replicas: 1, duplicate_window: window });
});

it('updates a stream whose duplicate window is not the horizon, and keeps the window within a shorter max age', async () => {
  const name = `${limits.toUpperCase()}_WINDOW`;
  const jsm = await jetstreamManager(nc);
  // As streams were created before the window followed the relay: JetStream's default two minutes.
  await jsm.streams.add({ name, subjects: [`${limits}.window.>`], duplicate_window: nanos(120_000) });
  const bus = await open(limits);
  await bus.ensureStream('CAIRN_WINDOW', ['cairn.window.>']);
  expect((await streamConfig(name)).duplicate_window).toBe(nanos(RELAY_RETRY_HORIZON_MS));
  // JetStream refuses a window longer than the max age.
  const short = await open(limits, { maxAgeMs: 60_000, maxBytes: 0 });
  await short.ensureStream('CAIRN_WINDOW', ['cairn.window.>']);
  expect(await streamConfig(name)).toMatchObject({ max_age: nanos(60_000), duplicate_window: nanos(60_000) });
});

it('gives a durable its maxAckPending, and leaves an unset one to JetStream', async () => {
  const bus = await open(limits);
  await bus.ensureStream('CAIRN_PENDING', ['cairn.pending.>']);
  const name = `${limits.toUpperCase()}_PENDING`;
  const handler = async (): Promise<void> => undefined;
  await bus.consume({ stream: 'CAIRN_PENDING', durable: 'ordered', filterSubject: 'cairn.pending.>', maxAckPending: 1, handler });
  await bus.consume({ stream: 'CAIRN_PENDING', durable: 'default', filterSubject: 'cairn.pending.>', handler });
  const jsm = await jetstreamManager(nc);
  await waitFor('both durables', async () => (await jsm.consumers.list(name).next()).length === 2);
  expect((await jsm.consumers.info(name, `${limits}-ordered`)).config.max_ack_pending).toBe(1);
  const unset = (await jsm.consumers.info(name, `${limits}-default`)).config.max_ack_pending;
  // An existing durable's own value stays when the consumer does not state one.
  await jsm.consumers.update(name, `${limits}-default`, { max_ack_pending: 7 });
  const again = await open(limits);
  await again.consume({ stream: 'CAIRN_PENDING', durable: 'default', filterSubject: 'cairn.pending.>', handler });
  expect(unset).toBeGreaterThan(1);
  expect((await jsm.consumers.info(name, `${limits}-default`)).config.max_ack_pending).toBe(7);
});

it('adds the subjects a newer producer names to its existing stream, keeping what it stored', async () => {
  const before = await open(limits);
  await before.ensureStream('CAIRN_GROWING', ['cairn.growing.>']);
  const kept = uuidv7();
  await before.publish('cairn.growing.one', kept, new TextEncoder().encode('kept'));

  const after = await open(limits);
  await after.ensureStream('CAIRN_GROWING', ['cairn.growing.>', 'cairn.grown.>']);
  const name = `${limits.toUpperCase()}_GROWING`;
  expect([...((await streamConfig(name)).subjects ?? [])].sort()).toEqual([`${limits}.growing.>`, `${limits}.grown.>`]);
  const added = uuidv7();
  await after.publish('cairn.grown.one', added, new TextEncoder().encode('added'));
  const consumed: string[] = [];
  await after.consume({ stream: 'CAIRN_GROWING', durable: 'growing-reader', filterSubject: 'cairn.>', handler: async (m) => void consumed.push(m.id) });
  await waitFor('both messages', () => consumed.length >= 2);
  expect(consumed).toEqual([kept, added]);
});

describe('two installations with different prefixes on one NATS server', () => {
  /** One installation: accounts' stream and a durable consumer of it, and a broadcast subscriber, by the code's names. */
  async function installation(prefix: string) {
    const bus = await open(prefix);
    await bus.ensureStream('CAIRN_ACCOUNTS', ['cairn.user.>']);
    const consumed: BusMessage[] = [];
    const broadcast: BusMessage[] = [];
    await bus.consume({ stream: 'CAIRN_ACCOUNTS', durable: 'repos-accounts', filterSubject: 'cairn.user.>', handler: async (m) => void consumed.push(m) });
    await bus.subscribe('cairn.user.created', (m) => void broadcast.push(m));
    return { bus, consumed, broadcast };
  }

  it('keep their streams, durables and events apart', async () => {
    const a = await installation(first);
    const b = await installation(second);
    const fromA = uuidv7();
    const fromB = uuidv7();
    await a.bus.publish('cairn.user.created', fromA, new TextEncoder().encode('a'));
    // Published after A's was stored (and routed): had A's reached B's subscriber, it would have arrived first.
    await b.bus.publish('cairn.user.created', fromB, new TextEncoder().encode('b'));
    await waitFor('each installation’s own event', () => [a.consumed, a.broadcast, b.consumed, b.broadcast].every((got) => got.length > 0));

    expect(a.consumed.map((m) => [m.id, m.subject])).toEqual([[fromA, 'cairn.user.created']]);
    expect(a.broadcast.map((m) => m.id)).toEqual([fromA]);
    expect(b.consumed.map((m) => [m.id, m.subject])).toEqual([[fromB, 'cairn.user.created']]);
    expect(b.broadcast.map((m) => m.id)).toEqual([fromB]);
    // On the wire: each installation's stream, subjects and durable under its prefix, one event in each.
    const jsm = await jetstreamManager(nc);
    for (const [prefix, id] of [[first, fromA], [second, fromB]]) {
      const info = await jsm.streams.info(`${prefix.toUpperCase()}_ACCOUNTS`);
      expect([info.config.subjects, info.state.messages]).toEqual([[`${prefix}.user.>`], 1]);
      expect((await jsm.streams.getMessage(`${prefix.toUpperCase()}_ACCOUNTS`, { seq: 1 }))?.header.get('Nats-Msg-Id')).toBe(id);
      expect((await jsm.consumers.info(`${prefix.toUpperCase()}_ACCOUNTS`, `${prefix}-repos-accounts`)).config.filter_subject).toBe(`${prefix}.user.>`);
    }
  });
});
