/**
 * deploy/k8s/nats-values.yaml, the NATS users and permissions `npm run nats-config` generates from every service's
 * BUS_USAGE: the file is fresh, and on a private nats-server (the machine's 2.9) running the configuration the
 * chart renders from it, a service may publish only its own subjects and use only its own consumers — social
 * cannot publish cairn.user.deleted (which would make repos, social and issues delete a user's data) — while
 * every service's real bus (connectNatsBus with `[bus] USER`/`PASSWORD`) still does its work; and the user for
 * teams, events-public, reads the public event stream with its own consumers and nothing else.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { parse } from 'yaml';
import { BUS_USAGE as ACCOUNTS_USAGE } from '@cairn/accounts';
import { type Bus, type BusMessage, busNames, connectNatsBus, guardBus, natsInboxPrefix, provisionJetStream } from '@cairn/bus';
import {
  DEFAULT_BUS_PREFIX,
  DEFAULT_EVENTS_MAX_AGE_MS,
  DEFAULT_EVENTS_MAX_BYTES,
  DEFAULT_STREAM_MAX_AGE_MS,
  DEFAULT_STREAM_MAX_BYTES,
} from '@cairn/config';
import { EVENTS_PRIVATE_STREAM, EVENTS_PUBLIC_STREAM, EVENTS_STREAMS } from '@cairn/events';
import { BUS_USAGE as HOOKS_USAGE } from '@cairn/hooks';
import { BUS_USAGE as REPOS_USAGE } from '@cairn/repos';
import { BUS_USAGE as SOCIAL_USAGE } from '@cairn/social';
import { silentLogger } from '@cairn/log';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from '../libs/bus/src/test-support/nats-server';
import { waitFor } from '../libs/bus/src/test-support/wait';
import { ROOT, deployedServices, node, nodes, strings } from './support';

/** scripts/nats-config.js (plain JavaScript, no declarations). */
interface NatsConfigScript {
  render(): string;
  provision(url: string, password: string): Promise<void>;
  passwordVariable(service: string): string;
  OUTPUT: string;
  PASSWORD_SECRET: string;
  ADMIN_USER: string;
  EVENTS_READER_USER: string;
}

const script = require(path.join(ROOT, 'scripts', 'nats-config.js')) as NatsConfigScript;
const values = node(parse(fs.readFileSync(script.OUTPUT, 'utf8')), 'nats-values.yaml');
const config = node(values.config, 'config');
const merge = node(config.merge, 'config.merge');
const users = nodes(node(merge.authorization, 'authorization').users, 'users');

describe('deploy/k8s/nats-values.yaml', () => {
  it('is what npm run nats-config generates from the services\' BUS_USAGE (run it after changing events)', () => {
    expect(fs.readFileSync(script.OUTPUT, 'utf8')).toBe(script.render());
  });

  it('has one user per deployed service, the JetStream admin and the events reader, passwords read from the Secret, and JetStream on', () => {
    expect(users.map((user) => user.user)).toEqual([...deployedServices(), script.ADMIN_USER, script.EVENTS_READER_USER]);
    const env = node(node(values.container, 'container').env, 'container.env');
    for (const service of [...deployedServices(), script.ADMIN_USER, script.EVENTS_READER_USER]) {
      const variable = script.passwordVariable(service);
      expect(users.find((user) => user.user === service)?.password).toBe(`<< $${variable} >>`);
      expect(env[variable]).toEqual({ valueFrom: { secretKeyRef: { name: script.PASSWORD_SECRET, key: service } } });
    }
    expect(node(config.jetstream, 'jetstream').enabled).toBe(true);
  });

  it('lets no service but the owner publish a stream\'s subjects', () => {
    const publishers = (subject: string): unknown[] =>
      users.filter((user) => strings(node(node(user.permissions, 'permissions').publish, 'publish').allow, 'allow').includes(subject)).map((user) => user.user);
    expect(publishers('cairn.user.>')).toEqual(['accounts']);
    expect(publishers('cairn.repo.>')).toEqual(['repos']);
    expect(publishers('cairn.git.>')).toEqual(['git-storage']);
    // Creating streams and consumers is the admin's alone (a consumer or stream config could deliver or republish
    // onto another service's subjects), but for the events reader's consumers on the public event stream.
    for (const user of users) {
      const allowed = strings(node(node(user.permissions, 'permissions').publish, 'publish').allow, 'allow');
      const creates = allowed.filter((subject) => /^\$JS\.API\.(STREAM|CONSUMER)\.(CREATE|UPDATE|DURABLE)|^\$JS\.API\.>$/.test(subject));
      if (user.user === script.EVENTS_READER_USER) expect(creates.every((subject) => /^\$JS\.API\.CONSUMER\.(DURABLE\.)?CREATE\.CAIRN_EVENTS_PUBLIC(\.>)?$/.test(subject))).toBe(true);
      else expect([user.user, creates.length > 0]).toEqual([user.user, user.user === script.ADMIN_USER]);
    }
  });

  it('lets the events reader publish nothing but JetStream API calls on the public event stream', () => {
    const reader = users.find((user) => user.user === script.EVENTS_READER_USER)!;
    const permissions = node(reader.permissions, 'permissions');
    for (const subject of strings(node(permissions.publish, 'publish').allow, 'allow')) {
      expect(subject).toMatch(/^\$JS\.API\.INFO$|^\$JS\.API\.[A-Z.]+\.CAIRN_EVENTS_PUBLIC(\.>)?$|^\$JS\.ACK\.CAIRN_EVENTS_PUBLIC\.>$/);
    }
    expect(strings(node(permissions.subscribe, 'subscribe').allow, 'allow')).toEqual([`${natsInboxPrefix(script.EVENTS_READER_USER)}.>`]);
  });
});

const binary = findNatsServer();
const logger = silentLogger();
const encoder = new TextEncoder();

/**
 * The nats-server configuration the chart writes from `config.merge`: the values as NATS's JSON-compatible syntax,
 * `<< $VAR >>` unquoted (a variable nats-server reads from its environment).
 */
function serverConfig(): string {
  return Object.entries(merge)
    .map(([key, value]) => `${key}: ${JSON.stringify(value).replace(/"<< (\$[A-Z0-9_]+) >>"/g, '$1')}`)
    .join('\n');
}

(binary === undefined ? describe.skip : describe)('the generated permissions on a private nats-server', () => {
  // nats-server parses a variable's value as a configuration value: a password must start with a letter (a leading
  // digit reads as a number and stops the server), hence the documented `p` + hex.
  const passwords = new Map(
    [...deployedServices(), script.ADMIN_USER, script.EVENTS_READER_USER].map((user) => [user, `p${randomBytes(12).toString('hex')}`]),
  );
  let dir: string;
  let server: PrivateNatsServer;
  const closing: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-nats-config-'));
    const configFile = path.join(dir, 'nats.conf');
    fs.writeFileSync(configFile, serverConfig());
    const env = Object.fromEntries([...passwords].map(([service, password]) => [script.passwordVariable(service), password]));
    server = await startPrivateNatsServer(binary!, { configFile, env });
    // The documented set-up step: the admin creates every stream and durable the services use.
    await script.provision(server.url, passwords.get(script.ADMIN_USER)!);
  });

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  afterAll(async () => {
    await server?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A service's real bus: connectNatsBus with its `[bus] USER`/`PASSWORD`, `[bus] PREFIX` and stream limits (the
   * defaults, which provision read too), limited by its BUS_USAGE as in `start`.
   */
  async function busAs(usage: typeof SOCIAL_USAGE): Promise<Bus> {
    const bus = await connectNatsBus({
      url: server.url,
      logger,
      requestTimeoutMs: 2_000,
      prefix: DEFAULT_BUS_PREFIX,
      streamLimits: { maxAgeMs: DEFAULT_STREAM_MAX_AGE_MS, maxBytes: DEFAULT_STREAM_MAX_BYTES },
      eventStreamLimits: { maxAgeMs: DEFAULT_EVENTS_MAX_AGE_MS, maxBytes: DEFAULT_EVENTS_MAX_BYTES },
      auth: { kind: 'password', user: usage.service, password: passwords.get(usage.service)! },
    });
    closing.push(() => bus.close());
    return bus;
  }

  /** A plain connection as `service`, to try what its bus would never do. */
  async function connectAs(service: string): Promise<NatsConnection> {
    const nc = await connect({ servers: server.url, user: service, pass: passwords.get(service)!, inboxPrefix: natsInboxPrefix(service) });
    closing.push(() => nc.close());
    return nc;
  }

  /** How many messages the stream `owner` owns holds (asked as the owner: others may not look). */
  async function storedMessages(owner: typeof SOCIAL_USAGE): Promise<number> {
    const jsm = await jetstreamManager(await connectAs(owner.service));
    const stream = owner.owns![0].name;
    return (await jsm.streams.info(stream)).state.messages;
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

  it('refuses social publishing cairn.user.deleted (permissions violation) and stores nothing', async () => {
    const social = jetstream(await connectAs('social'), { timeout: 2_000 });

    expect(await refusal(social.publish('cairn.user.deleted', encoder.encode('{}'), { msgID: 'forged' }))).toMatch(
      /permissions violation for publish to "cairn\.user\.deleted"/i,
    );
    expect(await storedMessages(ACCOUNTS_USAGE)).toBe(0);
    // Nor may it consume with another service's durable, or change accounts' stream.
    const jsm = await jetstreamManager(await connectAs('social'));
    expect(await refusal(jsm.consumers.add(ACCOUNTS_USAGE.owns![0].name, { durable_name: 'issues-accounts', filter_subject: 'cairn.user.deleted' }))).toMatch(
      /permissions violation for publish to "\$JS\.API\.CONSUMER\.CREATE\.CAIRN_ACCOUNTS\.issues-accounts/i,
    );
    expect(await refusal(jsm.streams.update(ACCOUNTS_USAGE.owns![0].name, { subjects: ['cairn.>'] }))).toMatch(
      /permissions violation for publish to "\$JS\.API\.STREAM\.UPDATE\.CAIRN_ACCOUNTS"/i,
    );
    expect(await refusal(jsm.streams.delete(ACCOUNTS_USAGE.owns![0].name))).toMatch(/permissions violation for publish to "\$JS\.API\.STREAM\.DELETE/i);
    // Nor turn its own durable into a push consumer delivering repos' events as cairn.user.deleted (the server
    // would deliver them, and accounts' stream capture them, were the config accepted).
    const own = SOCIAL_USAGE.consumers[0];
    expect(
      await refusal(jsm.consumers.add(own.stream, { durable_name: busNames(DEFAULT_BUS_PREFIX).durable(own.durable), deliver_subject: 'cairn.user.deleted', filter_subject: own.filterSubject })),
    ).toMatch(/permissions violation for publish to "\$JS\.API\.CONSUMER\.CREATE\./i);
    // Nor have its own stream republish onto accounts' subjects.
    expect(
      await refusal(jsm.streams.update(SOCIAL_USAGE.owns![0].name, { republish: { src: '>', dest: 'cairn.user.deleted' } })),
    ).toMatch(/permissions violation for publish to "\$JS\.API\.STREAM\.UPDATE\.CAIRN_SOCIAL"/i);
    expect(await storedMessages(ACCOUNTS_USAGE)).toBe(0);
  });

  it('keeps each service out of the others\' inboxes, where their pulled messages arrive', async () => {
    const social = await connectAs('social');
    const errors: string[] = [];
    void (async () => {
      for await (const status of social.status()) if (status.type === 'error') errors.push(String(status.error));
    })();
    social.subscribe(`${natsInboxPrefix('accounts')}.>`);
    await social.flush();
    await waitFor('the refusal', () => errors.length > 0);
    expect(errors.join('\n')).toMatch(/permissions violation for subscription to "_INBOX_accounts\.>"/i);
  });

  it('lets social publish its own subjects and run its own consumers with its real bus', async () => {
    const repos = guardBus(await busAs(REPOS_USAGE), REPOS_USAGE);
    await repos.ensureStream(REPOS_USAGE.owns![0].name, [...REPOS_USAGE.owns![0].subjects]);
    const social = guardBus(await busAs(SOCIAL_USAGE), SOCIAL_USAGE);
    await social.ensureStream(SOCIAL_USAGE.owns![0].name, [...SOCIAL_USAGE.owns![0].subjects]);
    await social.publish('cairn.star.created', 'star-1', encoder.encode('{}'));
    expect(await storedMessages(SOCIAL_USAGE)).toBe(1);

    const received: BusMessage[] = [];
    const consumer = SOCIAL_USAGE.consumers.find((candidate) => candidate.stream === REPOS_USAGE.owns![0].name)!;
    await social.consume({ ...consumer, handler: async (message) => void received.push(message) });
    await repos.publish('cairn.repo.deleted', 'repo-1', encoder.encode('{}'));
    await waitFor('the repository event', () => received.length === 1);
    expect(received[0]).toMatchObject({ id: 'repo-1', subject: 'cairn.repo.deleted' });
    // Acknowledged: nothing left for the durable.
    const jsm = await jetstreamManager(await connectAs('social'));
    // On the wire the durable carries the prefix (namespace.ts).
    const durable = busNames(DEFAULT_BUS_PREFIX).durable(consumer.durable);
    await waitFor('the ack', async () => (await jsm.consumers.info(consumer.stream, durable)).num_ack_pending === 0);
  });

  it('lets hooks, which publishes nothing, run its own consumers with its real bus', async () => {
    const repos = guardBus(await busAs(REPOS_USAGE), REPOS_USAGE);
    await repos.ensureStream(REPOS_USAGE.owns![0].name, [...REPOS_USAGE.owns![0].subjects]);
    const hooks = guardBus(await busAs(HOOKS_USAGE), HOOKS_USAGE);
    const received: BusMessage[] = [];
    const consumer = HOOKS_USAGE.consumers.find((candidate) => candidate.stream === REPOS_USAGE.owns![0].name)!;
    await hooks.consume({ ...consumer, handler: async (message) => void received.push(message) });
    await repos.publish('cairn.repo.created', 'repo-hooks-1', encoder.encode('{}'));
    // The durable may also hold what earlier tests published to the stream.
    await waitFor('the repository event', () => received.some((message) => message.id === 'repo-hooks-1'));
    const raw = jetstream(await connectAs('hooks'), { timeout: 2_000 });
    expect(await refusal(raw.publish('cairn.repo.deleted', encoder.encode('{}'), { msgID: 'forged-by-hooks' }))).toMatch(
      /permissions violation for publish to "cairn\.repo\.deleted"/i,
    );
  });

  it('lets accounts publish its own subjects and nobody else\'s', async () => {
    const accounts = await busAs(ACCOUNTS_USAGE);
    await accounts.ensureStream(ACCOUNTS_USAGE.owns![0].name, [...ACCOUNTS_USAGE.owns![0].subjects]);
    const before = await storedMessages(ACCOUNTS_USAGE);
    await accounts.publish('cairn.user.deleted', 'user-1', encoder.encode('{}'));
    expect(await storedMessages(ACCOUNTS_USAGE)).toBe(before + 1);
    expect(await refusal(accounts.publish('cairn.repo.deleted', 'repo-2', encoder.encode('{}')))).toMatch(
      /permissions violation for publish to "cairn\.repo\.deleted"/i,
    );
    expect(await refusal(accounts.publish('cairn.star.created', 'star-2', encoder.encode('{}')))).toMatch(
      /permissions violation for publish to "cairn\.star\.created"/i,
    );
  });

  it('lets the events reader run its own consumers on the public event stream, and nothing else', async () => {
    // The event streams as provision makes them for their owner (hooks), with the [bus] EVENTS_* defaults.
    const admin = { kind: 'password' as const, user: script.ADMIN_USER, password: passwords.get(script.ADMIN_USER)! };
    const eventStreamLimits = { maxAgeMs: DEFAULT_EVENTS_MAX_AGE_MS, maxBytes: DEFAULT_EVENTS_MAX_BYTES };
    await provisionJetStream({ url: server.url, auth: admin, eventStreamLimits }, [{ service: 'hooks', owns: EVENTS_STREAMS, consumers: [], broadcasts: [] }]);
    const nc = await connectAs(script.EVENTS_READER_USER);
    const [js, jsm] = [jetstream(nc, { timeout: 2_000 }), await jetstreamManager(nc, { timeout: 2_000 })];
    expect((await jsm.streams.info(EVENTS_PUBLIC_STREAM)).config.subjects).toEqual(['cairn.events.v1.public.>']);
    await jsm.consumers.add(EVENTS_PUBLIC_STREAM, { durable_name: 'ci-mirror', ack_policy: AckPolicy.Explicit, filter_subject: 'cairn.events.v1.public.issues' });
    const replay = await jsm.consumers.add(EVENTS_PUBLIC_STREAM, {
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(Date.now() - 3_600_000).toISOString(),
    });
    for (const consumer of [await js.consumers.get(EVENTS_PUBLIC_STREAM, 'ci-mirror'), await js.consumers.get(EVENTS_PUBLIC_STREAM, replay.name)]) {
      expect(await consumer.next({ expires: 1_000 })).toBeNull();
    }
    const ordered = await js.consumers.get(EVENTS_PUBLIC_STREAM, { filter_subjects: 'cairn.events.v1.public.>' });
    expect(await ordered.next({ expires: 1_000 })).toBeNull();
    await jsm.consumers.delete(EVENTS_PUBLIC_STREAM, 'ci-mirror');

    expect(await refusal(jsm.streams.info(EVENTS_PRIVATE_STREAM))).toMatch(/permissions violation for publish to "\$JS\.API\.STREAM\.INFO\.CAIRN_EVENTS_PRIVATE"/i);
    expect(await refusal(jsm.consumers.add(EVENTS_PRIVATE_STREAM, { durable_name: 'peek', ack_policy: AckPolicy.Explicit }))).toMatch(/permissions violation/i);
    expect(await refusal(jsm.consumers.add(ACCOUNTS_USAGE.owns![0].name, { durable_name: 'peek', ack_policy: AckPolicy.Explicit }))).toMatch(
      /permissions violation/i,
    );
    expect(await refusal(jsm.streams.update(EVENTS_PUBLIC_STREAM, { max_age: 1 }))).toMatch(/permissions violation/i);
    for (const subject of ['cairn.events.v1.public.issues', 'cairn.events.v1.private.issues', 'cairn.user.deleted']) {
      expect(await refusal(js.publish(subject, encoder.encode('{}')))).toMatch(/permissions violation for publish/i);
    }
  });

  it('refuses a wrong password and a missing one', async () => {
    const wrong = connectNatsBus({ url: server.url, logger, auth: { kind: 'password', user: 'accounts', password: 'wrong' } });
    expect(await refusal(wrong)).toMatch(/authorization violation/i);
    expect(await refusal(connectNatsBus({ url: server.url, logger }))).toMatch(/authorization violation/i);
  });
});
