/**
 * examples/issues-mirror, compiled with the repository's TypeScript and run as teams run it, against an installation's
 * event streams on the machine's NATS filled by the test: it mirrors issues and their comment counts, skips an event
 * whose ce-id it applied before (republished, or replayed with --since), goes on where it stopped after a restart
 * (durable consumer) and never sees the private stream.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, testNatsUrl, uniqueName } from '@cairn/testing';
import { buildExample, killConsumers, startExample } from './support/event-consumers';
import { type TestEventStreams, createTestEventStreams, issuesPayload } from './support/public-events';

jest.setTimeout(90_000);

interface Mirror {
  issues: Record<string, { title: string; state: string; body: string; labels: string[]; comments: number; updated_at: string; html_url: string }>;
  seen: string[];
}

describe('examples/issues-mirror', () => {
  let streams: TestEventStreams;
  let dir: string;
  let file: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    buildExample();
    streams = await createTestEventStreams(uniqueName('mirror'));
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-mirror-'));
    file = path.join(dir, 'issues.json');
    env = { NATS_URL: testNatsUrl(), CAIRN_PREFIX: streams.prefix, MIRROR_DURABLE: 'mirror-test', MIRROR_FILE: file };
  });

  afterAll(async () => {
    killConsumers();
    await streams?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const mirror = (): Mirror => JSON.parse(readFileSync(file, 'utf8')) as Mirror;
  const start = (args: string[] = []) => startExample(env, args);
  const output = (run: { lines(): string[] }) => run.lines().join('\n');

  it('mirrors issues and comment counts, dedupes on ce-id, survives a restart and ignores private events', async () => {
    const from = new Date();
    const opened = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { title: 'crash on start', body: 'steps' }));
    await streams.publish('private', 'issues', issuesPayload('alice/secret', 1, { title: 'private matter', private: true }));
    const first = await start();
    await eventually(() => expect(mirror().issues['alice/tools#1']).toMatchObject({ title: 'crash on start', state: 'open', body: 'steps', labels: [], comments: 0 }));

    const labelled = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { action: 'label_updated', title: 'crash on start', labels: ['bug'] }));
    const commented = await streams.publish('public', 'issue_comment', issuesPayload('alice/tools', 1, { action: 'created', title: 'crash on start', labels: ['bug'], comments: 1 }));
    await eventually(() => expect(mirror().issues['alice/tools#1']).toMatchObject({ labels: ['bug'], comments: 1 }));

    // The same ce-id published again past JetStream's duplicate window (another message id) changes nothing.
    await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { title: 'stale copy' }), { id: opened.id, msgId: `${opened.id}-again` });
    await eventually(() => expect(output(first)).toContain(`duplicate ${opened.id}`));
    expect(mirror().issues['alice/tools#1'].title).toBe('crash on start');

    // Stopped, it misses nothing: the durable consumer resumes after the last acknowledged event.
    expect(await first.stop('SIGTERM')).toBe(0);
    const closed = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { action: 'closed', state: 'closed', labels: ['bug'], comments: 1 }));
    const other = await streams.publish('public', 'issues', issuesPayload('bob/site', 7, { title: 'typo' }));
    const second = await start();
    await eventually(() => expect(Object.keys(mirror().issues).sort()).toEqual(['alice/tools#1', 'bob/site#7']));
    expect(mirror().issues['alice/tools#1']).toMatchObject({ state: 'closed', html_url: 'http://localhost:3000/alice/tools/issues/1' });
    await eventually(() => expect(mirror().seen).toEqual(expect.arrayContaining([closed.id, other.id])));
    expect(output(second)).not.toContain(labelled.id);
    expect(await second.stop('SIGTERM')).toBe(0);

    // A replay from a time re-reads the stream; every event is a duplicate, the file stays as it was.
    const before = readFileSync(file, 'utf8');
    const replay = await start(['--since', from.toISOString()]);
    await eventually(() => expect(output(replay)).toContain(`duplicate ${other.id}`));
    for (const event of [opened, labelled, commented, closed]) expect(output(replay)).toContain(`duplicate ${event.id}`);
    expect(output(replay)).not.toContain('applied');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await replay.stop('SIGTERM')).toBe(0);

    // Nothing of the private stream, and no temporary file left beside the mirror.
    expect(JSON.stringify(mirror())).not.toContain('alice/secret');
    expect(readdirSync(dir)).toEqual(['issues.json']);
    expect(readFileSync(file, 'utf8')).not.toContain('private matter');
  });
});
