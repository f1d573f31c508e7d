/**
 * `cairn events tail` (the built CLI) against the machine's NATS, on an installation's two event streams filled by the
 * test as the hooks service fills them: new events only by default, `--since` replays from a duration or a time,
 * `--subject` narrows to one stream or event type, `--json` prints parseable events, SIGINT and SIGTERM end it with 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, testNatsUrl, uniqueName } from '@cairn/testing';
import { killConsumers, startTail as startConsumer } from './support/event-consumers';
import { type PublishedEvent, type TestEventStreams, createTestEventStreams, issuesPayload } from './support/public-events';

jest.setTimeout(60_000);

describe('cairn events tail', () => {
  let streams: TestEventStreams;
  let workDir: string;
  /** Published before any tail started. */
  let before: PublishedEvent;

  beforeAll(async () => {
    streams = await createTestEventStreams(uniqueName('tail'));
    workDir = mkdtempSync(path.join(tmpdir(), 'cairn-tail-'));
    before = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { title: 'before the tail' }));
  });

  afterAll(async () => {
    killConsumers();
    await streams?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  const startTail = (args: string[]) =>
    startConsumer(args, { CAIRN_WORK_DIR: workDir, CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: streams.prefix });

  const line = (event: PublishedEvent) =>
    [event.headers['ce-time'], event.headers['ce-type'], event.headers['ce-subject'], event.subject, event.id].join('  ');

  it('shows new events of both streams, one line each, and exits 0 on SIGINT', async () => {
    const tail = await startTail([]);
    expect(tail.errors()).toBe(`cairn: following ${streams.prefix}.events.v1.> (new events); Ctrl-C to stop\n`);
    const opened = await streams.publish('public', 'issues', issuesPayload('alice/tools', 2));
    const secret = await streams.publish('private', 'issue_comment', issuesPayload('alice/secret', 1, { action: 'created', private: true }));
    await eventually(() => expect(tail.lines()).toEqual(expect.arrayContaining([line(opened), line(secret)])));
    expect(tail.lines()).toHaveLength(2);
    expect(line(opened)).toMatch(new RegExp(`^\\S+Z  io\\.cairn\\.issues\\.opened  alice/tools  ${streams.prefix}\\.events\\.v1\\.public\\.issues  [0-9a-f-]{36}$`));
    expect(await tail.stop('SIGINT')).toBe(0);
  });

  it('replays with --since, narrows with --subject and prints JSON with --json; exits 0 on SIGTERM', async () => {
    const tail = await startTail(['--since', '1h', '--subject', `${streams.prefix}.events.v1.public.>`, '--json']);
    const later = await streams.publish('public', 'issues', issuesPayload('alice/tools', 3, { labels: ['bug'] }));
    await streams.publish('private', 'issues', issuesPayload('alice/secret', 2, { private: true }));
    // Everything public from the last hour, in stream order (earlier tests' events included), then the new one.
    const events = await eventually(() => {
      const parsed = tail.lines().map((text) => JSON.parse(text) as { subject: string; headers: Record<string, string>; data: { number: number } });
      expect(parsed.at(-1)?.headers['ce-id']).toBe(later.id);
      return parsed;
    });
    expect(events[0]).toEqual({ subject: before.subject, headers: expect.objectContaining(before.headers), data: before.payload });
    expect(events.map((event) => event.subject)).toEqual(events.map(() => `${streams.prefix}.events.v1.public.issues`));
    expect(events.map((event) => event.data.number)).toEqual([1, 2, 3]);
    expect(events.at(-1)?.headers).toEqual(expect.objectContaining({ ...later.headers, 'Nats-Msg-Id': later.id }));
    expect(await tail.stop('SIGTERM')).toBe(0);
  });

  it('replays from an RFC 3339 time and follows one event type across both streams', async () => {
    const from = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const comment = await streams.publish('public', 'issue_comment', issuesPayload('alice/tools', 1, { action: 'created' }));
    const hidden = await streams.publish('private', 'issue_comment', issuesPayload('alice/secret', 2, { action: 'created', private: true }));
    await streams.publish('public', 'issues', issuesPayload('alice/tools', 4));
    const tail = await startTail(['--since', from.toISOString(), '--subject', `${streams.prefix}.events.v1.*.issue_comment`]);
    await eventually(() => expect([...tail.lines()].sort()).toEqual([line(comment), line(hidden)].sort()));
    expect(await tail.stop('SIGINT')).toBe(0);
  });
});
