/**
 * `cairn events tail` (the built CLI) against the machine's NATS, on an installation's two event streams filled by the
 * test as the hooks service fills them: new events only by default, `--since` replays from a duration or a time,
 * `--subject` narrows to one stream or event type, `--json` prints parseable events, SIGINT and SIGTERM end it with 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, testNatsUrl, uniqueName } from '@cairn/testing';
import { CLI_MAIN, ROOT } from './support/instance';
import { type PublishedEvent, type TestEventStreams, createTestEventStreams, issuesPayload } from './support/public-events';

jest.setTimeout(60_000);

interface Tail {
  child: ChildProcess;
  stdout(): string[];
  stderr(): string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

describe('cairn events tail', () => {
  let streams: TestEventStreams;
  let workDir: string;
  const tails: Tail[] = [];
  /** Published before any tail started. */
  let before: PublishedEvent;

  beforeAll(async () => {
    if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: build first (npx turbo run build)`);
    streams = await createTestEventStreams(uniqueName('tail'));
    workDir = mkdtempSync(path.join(tmpdir(), 'cairn-tail-'));
    before = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { title: 'before the tail' }));
  });

  afterAll(async () => {
    for (const tail of tails) if (tail.child.exitCode === null) tail.child.kill('SIGKILL');
    await streams?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** Starts the CLI and waits until it follows the stream (its notice on stderr). */
  async function startTail(args: string[]): Promise<Tail> {
    const env = { ...process.env, CAIRN_WORK_DIR: workDir, CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: streams.prefix };
    const child = spawn(process.execPath, [CLI_MAIN, 'events', 'tail', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const tail: Tail = {
      child,
      stdout: () => out.split('\n').filter((line) => line !== ''),
      stderr: () => err,
      async stop(signal) {
        child.kill(signal);
        return exited;
      },
    };
    tails.push(tail);
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`the tail exited ${child.exitCode}: ${err}`);
      expect(err).toContain('cairn: following ');
    });
    return tail;
  }

  const line = (event: PublishedEvent) =>
    [event.headers['ce-time'], event.headers['ce-type'], event.headers['ce-subject'], event.subject, event.id].join('  ');

  it('shows new events of both streams, one line each, and exits 0 on SIGINT', async () => {
    const tail = await startTail([]);
    expect(tail.stderr()).toBe(`cairn: following ${streams.prefix}.events.v1.> (new events); Ctrl-C to stop\n`);
    const opened = await streams.publish('public', 'issues', issuesPayload('alice/tools', 2));
    const secret = await streams.publish('private', 'issue_comment', issuesPayload('alice/secret', 1, { action: 'created', private: true }));
    await eventually(() => expect(tail.stdout()).toEqual(expect.arrayContaining([line(opened), line(secret)])));
    expect(tail.stdout()).toHaveLength(2);
    expect(line(opened)).toMatch(new RegExp(`^\\S+Z  io\\.cairn\\.issues\\.opened  alice/tools  ${streams.prefix}\\.events\\.v1\\.public\\.issues  [0-9a-f-]{36}$`));
    expect(await tail.stop('SIGINT')).toBe(0);
  });

  it('replays with --since, narrows with --subject and prints JSON with --json; exits 0 on SIGTERM', async () => {
    const tail = await startTail(['--since', '1h', '--subject', `${streams.prefix}.events.v1.public.>`, '--json']);
    const later = await streams.publish('public', 'issues', issuesPayload('alice/tools', 3, { labels: ['bug'] }));
    await streams.publish('private', 'issues', issuesPayload('alice/secret', 2, { private: true }));
    // Everything public from the last hour, in stream order (earlier tests' events included), then the new one.
    const events = await eventually(() => {
      const parsed = tail.stdout().map((text) => JSON.parse(text) as { subject: string; headers: Record<string, string>; data: { number: number } });
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
    await eventually(() => expect([...tail.stdout()].sort()).toEqual([line(comment), line(hidden)].sort()));
    expect(await tail.stop('SIGINT')).toBe(0);
  });
});
