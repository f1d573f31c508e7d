/**
 * natsStreamReaderPermissions on a private nats-server (the machine's 2.9): a team user reads the public event stream
 * with a plain @nats-io/jetstream client — its own durable, a `by_start_time` replay, an ordered consumer — and is
 * refused everything else: the private event stream, Cairn's internal streams, changing streams, and publishing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from './test-support/nats-server';
import { waitFor } from './test-support/wait';
import { silentLogger } from '@cairn/log';
import { connectNatsBus } from './nats-bus';
import type { Bus, BusMessage } from './types';
import { type BusUsage, natsInboxPrefix, natsPermissions, natsStreamReaderPermissions } from './usage';

const binary = findNatsServer();
const encoder = new TextEncoder();
const text = (data: Uint8Array): string => new TextDecoder().decode(data);

/** The installation's names under `[bus] PREFIX` = `acme` (the code's CAIRN_EVENTS_PUBLIC is ACME_EVENTS_PUBLIC). */
const PUBLIC = 'ACME_EVENTS_PUBLIC';
const PRIVATE = 'ACME_EVENTS_PRIVATE';
const INTERNAL = 'ACME_ACCOUNTS';
const TEAM = 'ci-team';
/** docs/security.md's stricter option: a team that only reads a durable the operator provisioned (as Cairn's services do). */
const STRICT: BusUsage = {
  service: 'audit-team',
  consumers: [{ stream: 'CAIRN_EVENTS_PUBLIC', durable: 'audit', filterSubject: 'cairn.events.v1.public.>' }],
  broadcasts: [],
};
const PASSWORDS: Readonly<Record<string, string>> = { admin: 'padmin', [TEAM]: 'pteam', [STRICT.service]: 'pstrict' };

(binary === undefined ? describe.skip : describe)('natsStreamReaderPermissions on a private nats-server', () => {
  let dir: string;
  let server: PrivateNatsServer;
  const connections: NatsConnection[] = [];

  async function connectAs(user: string): Promise<NatsConnection> {
    const nc = await connect({ servers: server.url, user, pass: PASSWORDS[user], inboxPrefix: natsInboxPrefix(user) });
    connections.push(nc);
    return nc;
  }

  /** The error of `attempt`, with its causes, as text. */
  async function refusal(attempt: Promise<unknown>): Promise<string> {
    try {
      await attempt;
    } catch (error) {
      const messages: string[] = [];
      for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) messages.push(cause.message);
      return messages.join(' / ');
    }
    throw new Error('expected the server to refuse');
  }

  let team: { js: JetStreamClient; jsm: JetStreamManager };
  const published = new Date();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-nats-reader-'));
    const configFile = path.join(dir, 'nats.conf');
    const users = [
      // The stand-in for Cairn's services: everything allowed.
      { user: 'admin', password: PASSWORDS.admin },
      { user: TEAM, password: PASSWORDS[TEAM], permissions: natsStreamReaderPermissions(TEAM, 'CAIRN_EVENTS_PUBLIC', 'acme') },
      { user: STRICT.service, password: PASSWORDS[STRICT.service], permissions: natsPermissions(STRICT, 'acme') },
    ];
    fs.writeFileSync(configFile, `authorization: ${JSON.stringify({ users })}\n`);
    server = await startPrivateNatsServer(binary!, { configFile });

    const admin = await connectAs('admin');
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: PUBLIC, subjects: ['acme.events.v1.public.>'] });
    await jsm.streams.add({ name: PRIVATE, subjects: ['acme.events.v1.private.>'] });
    await jsm.streams.add({ name: INTERNAL, subjects: ['acme.user.>'] });
    const js = jsm.jetstream();
    for (const [subject, body] of [
      ['acme.events.v1.public.issues', 'public issue'],
      ['acme.events.v1.private.issues', 'private issue'],
      ['acme.user.created', 'internal'],
      ['acme.events.v1.public.push', 'public push'],
    ]) {
      const h = headers();
      h.set('ce-specversion', '1.0');
      h.set('ce-type', `io.cairn.${subject.split('.').pop()}`);
      await js.publish(subject, encoder.encode(body), { headers: h });
    }
    const nc = await connectAs(TEAM);
    team = { js: jetstream(nc, { timeout: 2_000 }), jsm: await jetstreamManager(nc, { timeout: 2_000 }) };
  });

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await server?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Fetches everything the consumer has (up to 10), acking each. */
  async function drain(js: JetStreamClient, consumerName: string | { filter: string }): Promise<string[]> {
    const consumer = typeof consumerName === 'string' ? await js.consumers.get(PUBLIC, consumerName) : await js.consumers.get(PUBLIC, { filter_subjects: consumerName.filter });
    const got: string[] = [];
    const batch = await consumer.fetch({ max_messages: 10, expires: 1_000 });
    for await (const msg of batch) {
      got.push(`${msg.subject} ${text(msg.data)} ${msg.headers?.get('ce-type') ?? ''}`);
      msg.ack();
    }
    return got;
  }

  it('reads the public stream with its own durable, acks, and finds the durable done', async () => {
    expect((await team.jsm.streams.info(PUBLIC)).state.messages).toBe(2);
    await team.jsm.consumers.add(PUBLIC, { durable_name: 'ci-team-mirror', ack_policy: AckPolicy.Explicit, filter_subject: 'acme.events.v1.public.>' });
    expect(await drain(team.js, 'ci-team-mirror')).toEqual([
      'acme.events.v1.public.issues public issue io.cairn.issues',
      'acme.events.v1.public.push public push io.cairn.push',
    ]);
    await waitFor('the acks', async () => (await team.jsm.consumers.info(PUBLIC, 'ci-team-mirror')).num_ack_pending === 0);
    expect((await team.jsm.consumers.info(PUBLIC, 'ci-team-mirror')).num_pending).toBe(0);
    expect((await team.jsm.consumers.list(PUBLIC).next()).map((info) => info.name)).toContain('ci-team-mirror');
    await team.jsm.consumers.delete(PUBLIC, 'ci-team-mirror');
  });

  it('replays from a point in time (deliver_policy by_start_time) with an ephemeral consumer', async () => {
    const info = await team.jsm.consumers.add(PUBLIC, {
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(published.getTime() - 60_000).toISOString(),
      filter_subject: 'acme.events.v1.public.issues',
      inactive_threshold: 60_000_000_000,
    });
    expect(await drain(team.js, info.name)).toEqual(['acme.events.v1.public.issues public issue io.cairn.issues']);
    // A start after every message: nothing to replay.
    const later = await team.jsm.consumers.add(PUBLIC, {
      name: 'ci-team-later',
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(await drain(team.js, later.name)).toEqual([]);
    await team.jsm.consumers.delete(PUBLIC, later.name);
  });

  it('reads with an ordered consumer', async () => {
    expect(await drain(team.js, { filter: 'acme.events.v1.public.>' })).toEqual([
      'acme.events.v1.public.issues public issue io.cairn.issues',
      'acme.events.v1.public.push public push io.cairn.push',
    ]);
  });

  it('refuses the private event stream, internal streams, stream changes and publishing', async () => {
    const violation = (subject: string) => new RegExp(`permissions violation for publish to "${subject.replace(/[$.]/g, '\\$&')}`, 'i');
    expect(await refusal(team.jsm.streams.info(PRIVATE))).toMatch(violation(`$JS.API.STREAM.INFO.${PRIVATE}`));
    expect(await refusal(team.jsm.consumers.add(PRIVATE, { durable_name: 'peek', ack_policy: AckPolicy.Explicit }))).toMatch(
      violation(`$JS.API.CONSUMER.CREATE.${PRIVATE}.peek`),
    );
    expect(await refusal(team.jsm.consumers.add(PRIVATE, { ack_policy: AckPolicy.Explicit }))).toMatch(/permissions violation/i);
    expect(await refusal(team.js.consumers.get(PRIVATE, { filter_subjects: "acme.events.v1.private.>" }).then((c) => c.next({ expires: 1_000 })))).toMatch(
      /permissions violation/i,
    );
    expect(await refusal(team.jsm.consumers.add(INTERNAL, { durable_name: 'peek', ack_policy: AckPolicy.Explicit }))).toMatch(
      violation(`$JS.API.CONSUMER.CREATE.${INTERNAL}.peek`),
    );
    expect(await refusal(team.jsm.streams.update(PUBLIC, { max_age: 1 }))).toMatch(/permissions violation/i);
    expect(await refusal(team.jsm.streams.add({ name: 'ACME_TEAM', subjects: ['team.>'] }))).toMatch(violation('$JS.API.STREAM.CREATE.ACME_TEAM'));
    expect(await refusal(team.jsm.streams.delete(PUBLIC))).toMatch(violation(`$JS.API.STREAM.DELETE.${PUBLIC}`));
    for (const subject of ['acme.events.v1.public.issues', 'acme.events.v1.private.issues', 'acme.user.deleted']) {
      expect(await refusal(team.js.publish(subject, encoder.encode('forged')))).toMatch(violation(subject));
    }
    const admin = await jetstreamManager(await connectAs('admin'));
    expect((await admin.streams.info(PUBLIC)).state.messages).toBe(2);
    expect((await admin.streams.info(INTERNAL)).state.messages).toBe(1);
  });

  it('cannot refuse a push consumer by permissions (the caveat in docs/security.md); the durable-only option can', async () => {
    const adminConnection = await connectAs('admin');
    const admin = await jetstreamManager(adminConnection);
    const before = (await admin.streams.info(INTERNAL)).state.messages;
    // A push consumer delivers while its subject has interest: Cairn's gateway subscribes to cairn.user.deleted (a
    // broadcast), as this Cairn bus does; its durable consumer of the stream capturing the subject must not see them either.
    const bus: Bus = await connectNatsBus({ url: server.url, logger: silentLogger(), prefix: 'acme', auth: { kind: 'password', user: 'admin', password: PASSWORDS.admin } });
    const seen: BusMessage[] = [];
    const broadcast = await bus.subscribe('cairn.user.deleted', (message) => void seen.push(message));
    const consumer = await bus.consume({ stream: 'CAIRN_ACCOUNTS', durable: 'strays', filterSubject: 'cairn.user.deleted', handler: async (message) => void seen.push(message) });
    // NATS 2.9 reads deliver_subject from the request body: the create subject is the same as a pull consumer's.
    await team.jsm.consumers.add(PUBLIC, { durable_name: 'push', ack_policy: AckPolicy.None, deliver_subject: 'acme.user.deleted' });
    await waitFor('the server delivering onto an internal subject', async () => (await admin.streams.info(INTERNAL)).state.messages > before);
    await admin.consumers.delete(PUBLIC, 'push');
    // The strays are dropped by Cairn's bus (headers.ts isStrayPublicEvent); a genuine event after them arrives.
    await bus.publish('cairn.user.deleted', '0190a000-0000-7000-8000-000000000001', encoder.encode('genuine'));
    await waitFor('the genuine event, twice (broadcast and durable)', async () => seen.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.map((message) => text(message.data))).toEqual(['genuine', 'genuine']);
    await consumer.stop();
    await broadcast.stop();
    await bus.close();

    // The operator provisions the durable; the team user may only read and ack it.
    await admin.consumers.add(PUBLIC, { durable_name: 'acme-audit', ack_policy: AckPolicy.Explicit, filter_subject: 'acme.events.v1.public.>' });
    const strict = await connectAs(STRICT.service);
    const [js, jsm] = [jetstream(strict, { timeout: 2_000 }), await jetstreamManager(strict, { timeout: 2_000 })];
    expect(await drain(js, 'acme-audit')).toEqual([
      'acme.events.v1.public.issues public issue io.cairn.issues',
      'acme.events.v1.public.push public push io.cairn.push',
    ]);
    expect(await refusal(jsm.consumers.add(PUBLIC, { durable_name: 'push', ack_policy: AckPolicy.None, deliver_subject: 'acme.user.deleted' }))).toMatch(
      /permissions violation for publish to "\$JS\.API\.CONSUMER\.CREATE\./i,
    );
    expect(await refusal(jsm.consumers.add(PUBLIC, { ack_policy: AckPolicy.Explicit }))).toMatch(/permissions violation/i);
  });
});
