/**
 * Every ref change produces one cairn.git.pushed, however the push ends: a client that leaves as soon as receive-pack
 * moved the refs, refs moved while the service was down, a push accepted whose event the process never wrote. And
 * a change found twice (a second restart) is not published twice.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import type { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { recordPush } from '../src/events/pushed';
import { type GitStorageHarness, PUSHER, ZERO_SHA, gitOk, repository, startGitStorage } from './harness';

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage();
});

afterAll(async () => {
  await h.stop();
});

/** Commits a file in `dir` and answers the commit's id. */
async function commitFile(dir: string, file: string): Promise<string> {
  writeFileSync(path.join(dir, file), `${file}\n`);
  await gitOk(['add', '.'], { cwd: dir });
  await gitOk(['commit', '--quiet', '-m', file], { cwd: dir });
  return gitOk(['rev-parse', 'HEAD'], { cwd: dir });
}

/** A working copy with one commit on main, and that commit's id. */
async function workingCopy(): Promise<{ dir: string; sha: string }> {
  const dir = h.scratch('work');
  await gitOk(['init', '--quiet', '--initial-branch=main', dir]);
  return { dir, sha: await commitFile(dir, 'a.txt') };
}

/** One pkt-line of git's protocol. */
function pktLine(line: string): Buffer {
  const data = Buffer.from(line, 'utf8');
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
}

/**
 * The body `git push` sends to create `ref` at `sha` (`revs`: what the pack holds, pack-objects' `--revs` input), asking
 * for report-status only (no side-band).
 */
function createRefRequest(work: string, ref: string, sha: string, revs: string): Buffer {
  const pack = spawnSync('git', ['pack-objects', '--quiet', '--stdout', '--revs'], { cwd: work, input: revs, maxBuffer: 64 * 1024 * 1024 });
  if (pack.status !== 0) throw new Error(`pack-objects failed: ${pack.stderr.toString()}`);
  return Buffer.concat([pktLine(`${ZERO_SHA} ${sha} ${ref}\0report-status\n`), Buffer.from('0000'), pack.stdout]);
}

/**
 * POSTs `body` to the bridge's git-receive-pack of `repoId` and disconnects as soon as the answer starts. Without
 * side-band, receive-pack's first bytes are its report, written after it moved the refs.
 */
function pushAndLeave(repoId: number, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.url(repoId)}/git-receive-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-receive-pack-request' } });
    req.on('response', () => {
      req.destroy();
      resolve();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Our own destroy after the answer started.
      if (error.code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

/** Lets a reader blocked on opening `fifo` go on (it reads an empty file), and removes it. */
function releaseFifo(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch (error) {
    // ENXIO: nobody is reading.
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
  }
  rmSync(fifo, { force: true });
}

async function eventsOf(repoId: number): Promise<GitPushed[]> {
  return (await h.pushedEvents()).filter((event) => event.repoId === repoId);
}

/** The events of `repoId` once there are `count` of them, or what there is after 15 s. */
async function awaitEvents(repoId: number, count: number): Promise<GitPushed[]> {
  for (let i = 0; i < 600; i++) {
    const events = await eventsOf(repoId);
    if (events.length >= count) return events;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return eventsOf(repoId);
}

const refOf = (gitDir: string, ref: string) => gitOk(['rev-parse', '--verify', '--quiet', ref], { cwd: gitDir });

it('publishes a push whose client disconnected once receive-pack moved the refs, once', async () => {
  const id = await h.createEmpty();
  const gitDir = h.gitDir(id);
  const { dir, sha: main } = await workingCopy();
  await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: dir });
  const topic = await commitFile(dir, 'b.txt');
  // After its report (so after moving the refs), receive-pack updates the dumb-HTTP files when
  // receive.updateServerInfo is set, reading objects/info/packs first: as a FIFO nobody writes, that read holds git
  // there, still running when the client leaves, until the call's end kills it.
  await gitOk(['config', 'receive.updateServerInfo', 'true'], { cwd: gitDir });
  const fifo = path.join(gitDir, 'objects', 'info', 'packs');
  rmSync(fifo, { force: true });
  execFileSync('mkfifo', [fifo]);

  let events: GitPushed[];
  try {
    await pushAndLeave(id, createRefRequest(dir, 'refs/heads/topic', topic, `${topic}\n^${main}\n`));
    events = await awaitEvents(id, 2);
  } finally {
    releaseFifo(fifo);
  }
  expect(await refOf(gitDir, 'refs/heads/topic')).toBe(topic);
  expect(events).toHaveLength(2);
  expect(events[1]).toMatchObject({
    pusherId: PUSHER.pusherId,
    repoOwnerId: PUSHER.repoOwnerId,
    repoPrivate: PUSHER.repoPrivate,
    refUpdates: [{ ref: 'refs/heads/topic', oldSha: ZERO_SHA, newSha: topic }],
    commitCount: 1,
  });

  // The start-up comparison finds the change published already.
  await h.restart();
  expect(await eventsOf(id)).toHaveLength(2);
});

describe('at start-up', () => {
  it('publishes refs changed while the service was down, once', async () => {
    const id = await h.createEmpty();
    const gitDir = h.gitDir(id);
    const { dir, sha: first } = await workingCopy();
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: dir });
    expect(await eventsOf(id)).toHaveLength(1);

    let second = '';
    await h.restart(async () => {
      // Moved behind git-storage's back: a new commit on main and a tag.
      const tree = await gitOk(['rev-parse', `${first}^{tree}`], { cwd: gitDir });
      second = await gitOk(['commit-tree', tree, '-p', first, '-m', 'behind the back'], { cwd: gitDir });
      await gitOk(['update-ref', 'refs/heads/main', second, first], { cwd: gitDir });
      await gitOk(['update-ref', 'refs/tags/v1', first], { cwd: gitDir });
    });

    const events = await eventsOf(id);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      // Nobody Cairn knows of moved them; the repository as the last push saw it.
      pusherId: 0,
      repoOwnerId: PUSHER.repoOwnerId,
      repoPrivate: PUSHER.repoPrivate,
      refUpdates: [
        { ref: 'refs/heads/main', oldSha: first, newSha: second },
        { ref: 'refs/tags/v1', oldSha: ZERO_SHA, newSha: first },
      ],
      commitCount: 1,
    });
    expect(events[1].meta?.eventId).not.toBe(events[0].meta?.eventId);

    await h.restart();
    expect(await eventsOf(id)).toHaveLength(2);

    // Later pushes start from what was published.
    await gitOk(['push', '--quiet', '--delete', h.url(id), 'v1'], { cwd: dir });
    const [, , deleted] = await eventsOf(id);
    expect(deleted).toMatchObject({ pusherId: PUSHER.pusherId, refUpdates: [{ ref: 'refs/tags/v1', oldSha: first, newSha: ZERO_SHA }] });
  });

  it('publishes a push that was accepted and applied but never published, as its pusher’s', async () => {
    const id = await h.createEmpty();
    const gitDir = h.gitDir(id);
    const { dir, sha } = await workingCopy();
    // The objects arrive; no ref moves and nothing is published.
    await gitOk(['push', '--quiet', gitDir, `${sha}:refs/cairn-test/objects`], { cwd: dir });
    await gitOk(['update-ref', '-d', 'refs/cairn-test/objects'], { cwd: gitDir });
    const pusher = { ...PUSHER, pusherId: 41 };

    await h.restart(async () => {
      // What receive-pack does between an accepted pre-receive check and a process that dies before publishing:
      // the push is written down, then git moves the ref.
      const db: Database = await openDatabase({ url: h.databaseUrl, schema: 'git_storage', logger: silentLogger() });
      try {
        await recordPush({ root: h.root, db }, repository(id), pusher, [{ ref: 'refs/heads/main', oldSha: ZERO_SHA, newSha: sha }]);
      } finally {
        await db.close();
      }
      await gitOk(['update-ref', 'refs/heads/main', sha, ZERO_SHA], { cwd: gitDir });
    });

    const events = await eventsOf(id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ pusherId: 41, refUpdates: [{ ref: 'refs/heads/main', oldSha: ZERO_SHA, newSha: sha }], commitCount: 1 });

    await h.restart();
    expect(await eventsOf(id)).toHaveLength(1);
  });
});
