/**
 * `[bus] PREFIX`: two installations on the machine's one NATS server, each under its own prefix (every service its own
 * process), keep apart: each creates its users and consumes its own events; a user created in one is published
 * under its prefix only and never reaches the other's streams or durable consumers.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

interface Seen {
  subject: string;
  login?: string;
}

describe('two installations sharing one NATS server under different [bus] PREFIXes', () => {
  const prefixes = [uniqueName('e2ea'), uniqueName('e2eb')];
  const fixtures: Fixture[] = [];
  let nats: NatsConnection;
  let watch: Subscription;
  const seen: Seen[] = [];

  beforeAll(async () => {
    nats = await connect({ servers: testNatsUrl() });
    // Every installation's user.created, whatever its prefix (`*`), so an event published under the other prefix shows.
    watch = nats.subscribe('*.user.created', {
      callback: (_error, msg) => {
        if (!prefixes.some((prefix) => msg.subject.startsWith(`${prefix}.`))) return;
        seen.push({ subject: msg.subject, login: msg.json<{ user?: { login?: string } }>().user?.login });
      },
    });
    // One after the other: the machine is small, and each start runs every service as a process of its own.
    fixtures.push(await startFixture('e2e_prefix_a', ['alice'], { CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: prefixes[0] }));
    fixtures.push(await startFixture('e2e_prefix_b', ['bob'], { CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: prefixes[1] }));
  }, 300_000);

  afterAll(async () => {
    watch?.unsubscribe();
    await nats?.close();
    for (const fixture of fixtures) await fixture.stop();
    await deleteStreamsOf(prefixes);
  });

  it('each works, and publishes and consumes its own users’ events only', async () => {
    const [a, b] = fixtures;
    expect((await a.api.request('GET', '/api/v1/users/alice', { headers: a.root })).status).toBe(200);
    expect((await b.api.request('GET', '/api/v1/users/alice', { headers: b.root })).status).toBe(404);
    expect((await b.api.request('GET', '/api/v1/users/bob', { headers: b.root })).status).toBe(200);

    await waitFor('both installations’ user.created events', () => (['alice', 'bob'].every((login) => seen.some((s) => s.login === login)) ? true : undefined));
    // The subjects each user's creation went out on (a relay retrying after a slow acknowledgement publishes again).
    const subjectsOf = (login: string) => [...new Set(seen.filter((s) => s.login === login).map((s) => s.subject))];
    expect(subjectsOf('alice')).toEqual([`${prefixes[0]}.user.created`]);
    expect(subjectsOf('bob')).toEqual([`${prefixes[1]}.user.created`]);

    // repos' durable consumer of accounts' events in each installation consumed its own stream to the end, and that
    // stream holds its own installation's events only.
    const jsm = await jetstreamManager(nats);
    for (const [index, prefix] of prefixes.entries()) {
      const stream = `${prefix.toUpperCase()}_ACCOUNTS`;
      const info = await jsm.streams.info(stream);
      expect(info.config.subjects?.every((subject) => subject.startsWith(`${prefix}.`))).toBe(true);
      const logins: string[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        const login = message?.json<{ user?: { login?: string } }>().user?.login;
        if (login !== undefined) logins.push(login);
      }
      expect(logins).toContain(index === 0 ? 'alice' : 'bob');
      expect(logins).not.toContain(index === 0 ? 'bob' : 'alice');
      await waitFor(`${prefix}-repos-accounts caught up`, async () => {
        const consumer = await jsm.consumers.info(stream, `${prefix}-repos-accounts`);
        return consumer.num_pending === 0 && consumer.num_ack_pending === 0 ? true : undefined;
      });
    }
  }, 180_000);
});
