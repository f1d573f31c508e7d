/**
 * A team granted the public stream alone (docs/events.md "Connect"): on a private nats-server whose `team` user may
 * use the JetStream API of `<PREFIX>_EVENTS_PUBLIC` only and read only its own inbox, `cairn events tail` follows
 * `<prefix>.events.v1.public.>` and examples/issues-mirror mirrors it; asking for the private stream is refused by
 * NATS and the CLI says so.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, uniqueName } from '@cairn/testing';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from '../libs/bus/src/test-support/nats-server';
import { buildExample, killConsumers, startExample, startTail, tailOutcome } from './support/event-consumers';
import { type TestEventStreams, createTestEventStreams, issuesPayload } from './support/public-events';

jest.setTimeout(90_000);

const binary = findNatsServer();

/** The permissions of a public-only team user: the public stream's consumer API, acks and its own inbox. */
function publicOnlyUser(user: string, password: string, prefix: string): string {
  const stream = `${prefix.toUpperCase()}_EVENTS_PUBLIC`;
  const publish = [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
  ];
  return `{ user: ${user}, password: ${password}, permissions: { publish: { allow: ${JSON.stringify(publish)} }, subscribe: { allow: ["_INBOX_${user}.>"] } } }`;
}

(binary === undefined ? describe.skip : describe)('a NATS user granted the public event stream alone', () => {
  const prefix = uniqueName('team');
  let server: PrivateNatsServer;
  let streams: TestEventStreams;
  let dir: string;
  let tailEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    buildExample();
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-public-user-'));
    const configFile = path.join(dir, 'nats.conf');
    writeFileSync(configFile, `accounts: { CAIRN: { jetstream: enabled, users: [ { user: admin, password: admin }, ${publicOnlyUser('team', 'team-secret', prefix)} ] } }\n`);
    server = await startPrivateNatsServer(binary!, { configFile });
    streams = await createTestEventStreams(prefix, { servers: server.url, user: 'admin', pass: 'admin' });
    tailEnv = {
      CAIRN_WORK_DIR: path.join(dir, 'work'),
      CAIRN__bus__URL: server.url,
      CAIRN__bus__PREFIX: prefix,
      CAIRN__bus__USER: 'team',
      CAIRN__bus__PASSWORD: 'team-secret',
    };
  });

  afterAll(async () => {
    killConsumers();
    await streams?.close();
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tails the public stream and mirrors its issues', async () => {
    const tail = await startTail(['--subject', `${prefix}.events.v1.public.>`], tailEnv);
    const mirror = await startExample({ NATS_URL: server.url, NATS_USER: 'team', NATS_PASSWORD: 'team-secret', CAIRN_PREFIX: prefix, MIRROR_FILE: path.join(dir, 'issues.json') });
    const event = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { title: 'seen by the team' }));
    await streams.publish('private', 'issues', issuesPayload('alice/secret', 1, { private: true }));
    await eventually(() => expect(tail.lines()).toEqual([expect.stringMatching(new RegExp(`  ${prefix}\\.events\\.v1\\.public\\.issues  ${event.id}$`))]));
    await eventually(() => expect(Object.keys((JSON.parse(readFileSync(path.join(dir, 'issues.json'), 'utf8')) as { issues: object }).issues)).toEqual(['alice/tools#1']));
    expect(await tail.stop('SIGINT')).toBe(0);
    expect(await mirror.stop('SIGTERM')).toBe(0);
  });

  it('is refused the private stream, and the CLI says which stream, why, and how to tail the public one', async () => {
    const refusal = new RegExp(
      `^cairn: cannot follow ${prefix}\\.events\\.v1\\.private\\.> in stream ${prefix.toUpperCase()}_EVENTS_PRIVATE: Permissions Violation .* \\(a user granted the public stream alone tails it with --subject ${prefix}\\.events\\.v1\\.public\\.>\\)\n$`,
    );
    for (const args of [['--subject', `${prefix}.events.v1.private.>`], []]) {
      const { code, stderr } = await tailOutcome(args, tailEnv);
      expect({ args, code }).toEqual({ args, code: 1 });
      expect(stderr).toMatch(refusal);
    }
  });
});
