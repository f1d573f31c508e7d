/**
 * The public event stream's delivery contract under faults, on the built supervisor (every service its own process)
 * with a NATS server of the test's own: while issues are opened one after another, the hooks process is killed with
 * SIGKILL (the supervisor restarts it), NATS is stopped and started again, and every PostgreSQL connection of the
 * installation is cut (as a database restart does). Afterwards every issue that exists has exactly one `issues`
 * `opened` event on the public stream (the stream deduplicates on the id, consumers need not here), none is there for
 * an issue that does not exist, and they are in the order the issues were committed.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from '../libs/bus/src/test-support/nats-server';
import { uniqueName } from '@cairn/testing';
import { Client } from 'pg';
import { type Fixture, startFixture } from './support/fixture';
import { isAlive, readRuntime, waitFor } from './support/instance';

jest.setTimeout(300_000);

const ISSUES = 36;

interface StoredEvent {
  id: string;
  subject: string;
  number: number;
  action: string;
}

describe('the public event stream when hooks, NATS and PostgreSQL restart', () => {
  const binary = findNatsServer();
  const prefix = uniqueName('pfault');
  let server: PrivateNatsServer;
  let fx: Fixture;
  let nats: NatsConnection | undefined;

  const hooksPid = (): number | undefined => readRuntime(fx.workDir)?.services.hooks?.process?.pid;

  /** Every message of the public stream, in stream order. */
  async function publicEvents(jsm: JetStreamManager): Promise<StoredEvent[]> {
    const stream = `${prefix.toUpperCase()}_EVENTS_PUBLIC`;
    const info = await jsm.streams.info(stream);
    const events: StoredEvent[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
      const message = await jsm.streams.getMessage(stream, { seq });
      if (message === null) continue;
      const payload = message.json<{ action?: string; issue?: { number: number } }>();
      events.push({ id: message.header.get('ce-id'), subject: message.subject, number: payload.issue?.number ?? 0, action: payload.action ?? '' });
    }
    return events;
  }

  beforeAll(async () => {
    if (binary === undefined) throw new Error('nats-server is not installed (/usr/sbin/nats-server)');
    server = await startPrivateNatsServer(binary);
    fx = await startFixture('e2e_public_events_faults', ['alice'], { CAIRN__bus__URL: server.url, CAIRN__bus__PREFIX: prefix });
    const created = await fx.api.request('POST', '/api/v1/user/repos', { headers: fx.as('alice'), body: { name: 'app' } });
    expect(created.status).toBe(201);
  }, 300_000);

  afterAll(async () => {
    await nats?.close();
    await fx?.stop();
    await server?.dispose();
  });

  it('loses, doubles and reorders nothing', async () => {
    const openIssue = async (i: number): Promise<void> => {
      // A write refused during an outage (503) is tried again; one that answered 201 is counted by what exists later.
      for (;;) {
        const answer = await fx.api.request('POST', '/api/v1/repos/alice/app/issues', { headers: fx.as('alice'), body: { title: `issue ${i}` } }).catch(() => undefined);
        if (answer?.status === 201) return;
        if (answer !== undefined && answer.status < 500) throw new Error(`issue ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };

    for (let i = 0; i < ISSUES; i += 1) {
      await openIssue(i);
      if (i === 8) {
        const before = hooksPid();
        expect(before).toBeDefined();
        process.kill(before!, 'SIGKILL');
        await waitFor('hooks to be restarted', () => {
          const pid = hooksPid();
          return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
        });
      }
      if (i === 16) await server.stop();
      if (i === 20) await server.start();
      if (i === 26) {
        const pg = new Client({ connectionString: fx.database.url });
        await pg.connect();
        try {
          await pg.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [fx.database.name]);
        } finally {
          await pg.end();
        }
      }
    }

    const listed = await fx.api.request<Array<{ number: number }>>('GET', '/api/v1/repos/alice/app/issues?state=all&limit=50', { headers: fx.as('alice') });
    expect(listed.status).toBe(200);
    const numbers = listed.body.map((issue) => issue.number).sort((a, b) => a - b);
    expect(numbers.length).toBeGreaterThanOrEqual(ISSUES);

    nats = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nats);
    const opened = await waitFor(
      'an opened event of every issue',
      async () => {
        const events = (await publicEvents(jsm)).filter((event) => event.subject === `${prefix}.events.v1.public.issues` && event.action === 'opened');
        return events.length >= numbers.length ? events : undefined;
      },
      120_000,
    );
    // Exactly one per issue that exists, none for one that does not, in commit order.
    expect(opened.map((event) => event.number)).toEqual(numbers);
    expect(new Set(opened.map((event) => event.id)).size).toBe(opened.length);
  });
});
