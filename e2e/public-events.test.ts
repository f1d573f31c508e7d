/**
 * The public event stream end to end, on two installations sharing the machine's NATS server under different
 * `[bus] PREFIX`es (every service its own process): a subscriber of `<prefix>.events.v1.>` receives, for a public and a
 * private repository, issue, comment, push, pull-request and release events with every CloudEvents header and Gitea's
 * payload keys; the private repository's only on `private` subjects; no hidden e-mail and no admin flag anywhere; the
 * id is the webhook delivery id of the same payload; each installation sees only its own; the AsyncAPI document the
 * gateway serves lists every subject seen; `cairn events tail` replays them and examples/issues-mirror mirrors the public
 * repository's issues only.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { serviceEnvOverrides } from '@cairn/config';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { type HookReceiver, startHookReceiver } from './support/hook-receiver';
import { gitTestEnv, waitFor } from './support/instance';
import { buildExample, killConsumers, startExample, startTail } from './support/event-consumers';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(300_000);

interface Seen {
  subject: string;
  headers: Record<string, string>;
  body: string;
  payload: Payload;
}

type Payload = Record<string, unknown> & {
  action?: string;
  ref?: string;
  repository?: { full_name: string; private: boolean; html_url: string };
  issue?: { number: number; title: string };
  pull_request?: { number: number };
  release?: { tag_name: string };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Gitea's payload keys of each event type (modules/structs/hook.go), all of which the body must have. */
const PAYLOAD_KEYS: Readonly<Record<string, readonly string[]>> = {
  issues: ['action', 'number', 'issue', 'repository', 'sender'],
  issue_comment: ['action', 'issue', 'comment', 'repository', 'sender', 'is_pull'],
  push: ['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender'],
  pull_request: ['action', 'number', 'pull_request', 'repository', 'sender'],
  release: ['action', 'release', 'repository', 'sender'],
};

describe('the public event stream', () => {
  const prefixes = [uniqueName('pevta'), uniqueName('pevtb')];
  const fixtures: Fixture[] = [];
  let nats: NatsConnection;
  let watch: Subscription;
  let receiver: HookReceiver;
  let scratch: string;
  const seen: Seen[] = [];

  const ofPrefix = (prefix: string) => seen.filter((event) => event.subject.startsWith(`${prefix}.`));

  async function ok<T = unknown>(fixture: Fixture, status: number, method: string, route: string, headers: Record<string, string>, body?: unknown): Promise<T> {
    const answer = await fixture.api.request<T>(method, `/api/v1${route}`, { headers, body });
    if (answer.status !== status) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** Issue, comment (by the site administrator), push, pull request and release in alice's repository `name`. */
  async function exercise(fixture: Fixture, name: string): Promise<void> {
    const alice = fixture.as('alice');
    const repo = `/repos/alice/${name}`;
    const issue = await ok<{ number: number }>(fixture, 201, 'POST', `${repo}/issues`, alice, { title: `issue in ${name}`, body: 'secret plans' });
    await ok(fixture, 201, 'POST', `${repo}/issues/${issue.number}/comments`, fixture.root, { body: 'an admin comment' });

    const git = (args: string[], cwd: string) =>
      promisify(execFile)('git', args, { cwd, env: gitTestEnv(scratch, { name: 'Committer', email: 'committer@commits.test' }) });
    const remote = new URL(`/alice/${name}.git`, fixture.instance.httpUrl);
    remote.username = 'alice';
    remote.password = USER_PASSWORD;
    const work = path.join(scratch, `${fixture.database.name}-${name}`);
    await git(['clone', '--quiet', remote.toString(), work], scratch);
    writeFileSync(path.join(work, 'feature.txt'), 'feature\n');
    await git(['checkout', '--quiet', '-b', 'feature'], work);
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'a feature'], work);
    await git(['push', '--quiet', 'origin', 'feature'], work);

    await ok(fixture, 201, 'POST', `${repo}/pulls`, alice, { head: 'feature', base: 'main', title: `pull in ${name}` });
    await ok(fixture, 201, 'POST', `${repo}/releases`, alice, { tag_name: 'v1.0.0', name: 'one', target_commitish: 'main' });
  }

  beforeAll(async () => {
    receiver = await startHookReceiver();
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-public-events-'));
    nats = await connect({ servers: testNatsUrl() });
    // Every installation's events, whatever its prefix, so one leaking into the other's subjects would show.
    watch = nats.subscribe('*.events.v1.>', {
      callback: (_error, msg) => {
        if (!prefixes.some((prefix) => msg.subject.startsWith(`${prefix}.`))) return;
        const headers: Record<string, string> = {};
        for (const key of msg.headers?.keys() ?? []) headers[key.toLowerCase()] = msg.headers?.get(key) ?? '';
        const body = msg.string();
        seen.push({ subject: msg.subject, headers, body, payload: JSON.parse(body) as Payload });
      },
    });
    await nats.flush();
    const env = (prefix: string) => ({
      CAIRN__bus__URL: testNatsUrl(),
      CAIRN__bus__PREFIX: prefix,
      ...serviceEnvOverrides({ webhook: { ALLOWED_HOST_LIST: 'loopback' } }),
    });
    // One after the other: the machine is small, and each start runs every service as a process of its own.
    fixtures.push(await startFixture('e2e_public_events_a', ['alice'], env(prefixes[0])));
    fixtures.push(await startFixture('e2e_public_events_b', ['alice'], env(prefixes[1])));
  }, 300_000);

  afterAll(async () => {
    killConsumers();
    watch?.unsubscribe();
    await nats?.close();
    for (const fixture of fixtures) await fixture.stop();
    await receiver?.close();
    await deleteStreamsOf(prefixes);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('carries a public and a private repository’s events, CloudEvents headers, Gitea payloads, nothing hidden', async () => {
    const [a, b] = fixtures;
    const alice = a.as('alice');
    await ok(a, 200, 'PATCH', '/user/settings', alice, { hide_email: true });
    await ok(a, 201, 'POST', '/user/repos', alice, { name: 'pub', auto_init: true });
    await ok(a, 201, 'POST', '/user/repos', alice, { name: 'priv', auto_init: true, private: true });
    await ok(a, 201, 'POST', '/repos/alice/pub/hooks', alice, {
      type: 'gitea',
      config: { url: `${receiver.url}/pub`, content_type: 'json' },
      events: ['issues'],
      active: true,
    });
    await exercise(a, 'pub');
    await exercise(a, 'priv');
    // The other installation: a public repository with an issue, under its own prefix.
    await ok(b, 201, 'POST', '/user/repos', b.as('alice'), { name: 'elsewhere', auto_init: true });
    await ok(b, 201, 'POST', '/repos/alice/elsewhere/issues', b.as('alice'), { title: 'in b' });

    const wanted = ['issues', 'issue_comment', 'push', 'pull_request', 'release'];
    const eventsOf = (prefix: string, repo: string) => ofPrefix(prefix).filter((event) => event.payload.repository?.full_name === repo);
    const has = (prefix: string, repo: string, type: string) => eventsOf(prefix, repo).some((event) => event.subject.endsWith(`.${type}`));
    await waitFor(
      'every kind of event of both repositories',
      () => (['alice/pub', 'alice/priv'].every((repo) => wanted.every((type) => has(prefixes[0], repo, type))) ? true : undefined),
      120_000,
    );
    await waitFor('the other installation’s issue', () => (has(prefixes[1], 'alice/elsewhere', 'issues') ? true : undefined));

    const mine = ofPrefix(prefixes[0]);
    for (const event of mine) {
      const [, , version, visibility, type] = event.subject.split('.');
      expect(version).toBe('v1');
      const repo = event.payload.repository?.full_name;
      // The private repository's events only on private subjects, the public one's only on public ones.
      expect(visibility).toBe(repo === 'alice/pub' ? 'public' : 'private');
      expect(event.headers['ce-specversion']).toBe('1.0');
      expect(event.headers['ce-id']).toMatch(UUID);
      expect(event.headers['nats-msg-id']).toBe(event.headers['ce-id']);
      expect(event.headers['ce-source']).toBe(event.payload.repository?.html_url.slice(0, -repo!.length));
      expect(event.headers['ce-type']).toBe(typeof event.payload.action === 'string' ? `io.cairn.${type}.${event.payload.action}` : `io.cairn.${type}`);
      expect(Math.abs(Date.parse(event.headers['ce-time']) - Date.now())).toBeLessThan(10 * 60_000);
      expect(event.headers['ce-subject']).toBe(repo);
      expect(event.headers['ce-datacontenttype']).toBe('application/json');
      for (const key of PAYLOAD_KEYS[type] ?? []) expect(Object.keys(event.payload)).toContain(key);
      // alice hides her e-mail; root is a site administrator: neither shows, anywhere in any body.
      expect(event.body).not.toContain('alice@example.com');
      expect(event.body).not.toContain('root@example.com');
      expect(event.body).not.toMatch(/"is_admin":\s*true/);
    }
    expect(new Set(mine.map((event) => event.headers['ce-source'])).size).toBe(1);
    // Each payload once: the relay's retries are deduplicated by JetStream on the id.
    const ids = mine.map((event) => event.headers['ce-id']);
    expect(new Set(ids).size).toBe(ids.length);

    // The webhook of the public repository got the same payload under the same id.
    const delivery = await receiver.waitFor('/pub', (received) => received.headers['x-gitea-event-type'] === 'issues');
    const published = mine.find((event) => event.headers['ce-id'] === delivery.headers['x-gitea-delivery']);
    expect(published?.subject).toBe(`${prefixes[0]}.events.v1.public.issues`);
    expect(JSON.parse(delivery.body)).toEqual(published?.payload);

    // Nothing of one installation under the other's prefix, in its subjects or its streams.
    expect(ofPrefix(prefixes[1]).every((event) => event.payload.repository?.full_name === 'alice/elsewhere')).toBe(true);
    expect(mine.some((event) => event.payload.repository?.full_name === 'alice/elsewhere')).toBe(false);
    const jsm = await jetstreamManager(nats);
    for (const prefix of prefixes) {
      for (const visibility of ['PUBLIC', 'PRIVATE']) {
        const info = await jsm.streams.info(`${prefix.toUpperCase()}_EVENTS_${visibility}`);
        expect(info.config.subjects).toEqual([`${prefix}.events.v1.${visibility.toLowerCase()}.>`]);
      }
    }

    // The AsyncAPI document lists every subject seen.
    const document = await a.api.request<{ asyncapi: string; channels: Record<string, { address: string }> }>('GET', '/api/asyncapi.json');
    expect(document.status).toBe(200);
    expect(document.body.asyncapi).toMatch(/^3\./);
    const addresses = new Set(Object.values(document.body.channels).map((channel) => channel.address));
    for (const subject of new Set(mine.map((event) => event.subject))) expect(addresses).toContain(subject);

    // What teams run: `cairn events tail` replaying the last hour of the public events…
    const tail = await startTail(['--since', '1h', '--json', '--subject', `${prefixes[0]}.events.v1.public.>`], a.env);
    const tailed = () => tail.lines().map((line) => JSON.parse(line) as { subject: string; headers: Record<string, string> });
    await waitFor('tail to replay the public issue', () => (tailed().some((event) => event.subject === `${prefixes[0]}.events.v1.public.issues`) ? true : undefined));
    expect(tailed().every((event) => event.subject.startsWith(`${prefixes[0]}.events.v1.public.`))).toBe(true);
    expect(await tail.stop()).toBe(0);
    // …and the example consumer, mirroring the public repository's issues and nothing of the private one.
    buildExample();
    const mirror = path.join(scratch, 'mirror.json');
    const example = await startExample({ NATS_URL: testNatsUrl(), CAIRN_PREFIX: prefixes[0], MIRROR_DURABLE: 'e2e-mirror', MIRROR_FILE: mirror });
    const mirrored = await waitFor('the example to mirror the public issue', () => {
      try {
        const read = JSON.parse(readFileSync(mirror, 'utf8')) as { issues: Record<string, { title: string }> };
        return read.issues['alice/pub#1'] === undefined ? undefined : read.issues;
      } catch {
        return undefined;
      }
    });
    expect(mirrored['alice/pub#1'].title).toBe('issue in pub');
    expect(Object.keys(mirrored).every((key) => key.startsWith('alice/pub#'))).toBe(true);
    await example.stop();
  });
});
