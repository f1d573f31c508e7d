/**
 * examples/issues-mirror, compiled with the repository's TypeScript and run as teams run it, against an installation's
 * event streams on the machine's NATS filled by the test: it mirrors issues and their comment counts, skips an event
 * whose ce-id it applied before (republished, or replayed with --since), goes on where it stopped after a restart
 * (durable consumer) and never sees the private stream.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, testNatsUrl, uniqueName } from '@cairn/testing';
import { ROOT } from './support/instance';
import { type TestEventStreams, createTestEventStreams, issuesPayload } from './support/public-events';

jest.setTimeout(90_000);

const EXAMPLE = path.join(ROOT, 'examples', 'issues-mirror');
const MAIN = path.join(EXAMPLE, 'dist', 'main.js');

interface Mirror {
  issues: Record<string, { title: string; state: string; body: string; labels: string[]; comments: number; updated_at: string; html_url: string }>;
  seen: string[];
}

/** Compiles the example as its README says (`npm run build`: tsc), with the repository's TypeScript. */
function buildExample(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(EXAMPLE, 'tsconfig.json')], { stdio: 'inherit' });
}

interface ExampleRun {
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts the built example and waits for its start line. */
async function startExample(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ExampleRun> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: EXAMPLE, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`the example exited ${child.exitCode}: ${output}`);
    expect(output).toContain('mirroring issues of ');
  });
  return {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('examples/issues-mirror', () => {
  let streams: TestEventStreams;
  let dir: string;
  let file: string;
  let env: NodeJS.ProcessEnv;
  const runs: ExampleRun[] = [];

  beforeAll(async () => {
    buildExample();
    streams = await createTestEventStreams(uniqueName('mirror'));
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-mirror-'));
    file = path.join(dir, 'issues.json');
    env = { NATS_URL: testNatsUrl(), CAIRN_PREFIX: streams.prefix, MIRROR_DURABLE: 'mirror-test', MIRROR_FILE: file };
  });

  afterAll(async () => {
    for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await streams?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const mirror = (): Mirror => JSON.parse(readFileSync(file, 'utf8')) as Mirror;
  const start = async (args: string[] = []) => {
    const run = await startExample(env, args);
    runs.push(run);
    return run;
  };

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
    await eventually(() => expect(first.output()).toContain(`duplicate ${opened.id}`));
    expect(mirror().issues['alice/tools#1'].title).toBe('crash on start');

    // Stopped, it misses nothing: the durable consumer resumes after the last acknowledged event.
    expect(await first.stop()).toBe(0);
    const closed = await streams.publish('public', 'issues', issuesPayload('alice/tools', 1, { action: 'closed', state: 'closed', labels: ['bug'], comments: 1 }));
    const other = await streams.publish('public', 'issues', issuesPayload('bob/site', 7, { title: 'typo' }));
    const second = await start();
    await eventually(() => expect(Object.keys(mirror().issues).sort()).toEqual(['alice/tools#1', 'bob/site#7']));
    expect(mirror().issues['alice/tools#1']).toMatchObject({ state: 'closed', html_url: 'http://localhost:3000/alice/tools/issues/1' });
    await eventually(() => expect(mirror().seen).toEqual(expect.arrayContaining([closed.id, other.id])));
    expect(second.output()).not.toContain(labelled.id);
    expect(await second.stop()).toBe(0);

    // A replay from a time re-reads the stream; every event is a duplicate, the file stays as it was.
    const before = readFileSync(file, 'utf8');
    const replay = await start(['--since', from.toISOString()]);
    await eventually(() => expect(replay.output()).toContain(`duplicate ${other.id}`));
    for (const event of [opened, labelled, commented, closed]) expect(replay.output()).toContain(`duplicate ${event.id}`);
    expect(replay.output()).not.toContain('applied');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await replay.stop()).toBe(0);

    // Nothing of the private stream, and no temporary file left beside the mirror.
    expect(JSON.stringify(mirror())).not.toContain('alice/secret');
    expect(readdirSync(dir)).toEqual(['issues.json']);
    expect(readFileSync(file, 'utf8')).not.toContain('private matter');
  });
});
