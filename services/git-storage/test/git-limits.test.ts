/**
 * The limits on git processes, through the real service: a client that stops sending or stops reading is cut off
 * after `[git.timeout] IDLE` and its transfer slot freed; `[git] MAX_CONCURRENT_TRANSFERS` answers RESOURCE_EXHAUSTED
 * at once when full; `[repository] MAX_PUSH_SIZE` refuses a larger pack with git's message; a commit force-pushed
 * away cannot be fetched by its id (protocol v0 and v2) while reachable ones still can.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeEnvKey } from '@cairn/config';
import { Code } from '@cairn/rpc';
import { FLUSH_PKT, pktLine } from '../src/git/pkt-line';
import { type GitStorageHarness, gitOk, git, repository, startGitStorage } from './harness';

const IDLE_SECONDS = 2;
const MAX_PUSH_SIZE = 1024 * 1024;

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage({
    [encodeEnvKey('git.timeout', 'IDLE')]: String(IDLE_SECONDS),
    [encodeEnvKey('git', 'MAX_CONCURRENT_TRANSFERS')]: '1',
    [encodeEnvKey('git', 'MAX_QUEUED_TRANSFERS')]: '0',
    [encodeEnvKey('repository', 'MAX_PUSH_SIZE')]: String(MAX_PUSH_SIZE),
  });
});

afterAll(async () => {
  await h.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A working copy on main with one commit adding `file` of `bytes` random (incompressible) bytes. */
async function commitRandom(dir: string, file: string, bytes: number): Promise<string> {
  writeFileSync(path.join(dir, file), randomBytes(bytes));
  await gitOk(['add', '.'], { cwd: dir });
  await gitOk(['commit', '--quiet', '-m', `add ${file}`], { cwd: dir });
  return gitOk(['rev-parse', 'HEAD'], { cwd: dir });
}

async function workingCopy(): Promise<string> {
  const dir = h.scratch('work');
  await gitOk(['init', '--quiet', '--initial-branch=main', dir]);
  return dir;
}

/** A protocol v0 upload-pack request for all of `sha`. */
const wantAll = (sha: string) => Buffer.concat([pktLine(`want ${sha} side-band-64k ofs-delta\n`), FLUSH_PKT, pktLine('done\n')]);

async function collect(messages: AsyncIterable<{ data: Buffer }>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const { data } of messages) chunks.push(data);
  return Buffer.concat(chunks);
}

describe('idle transfers', () => {
  it('cuts off a client that stops sending after [git.timeout] IDLE, and frees its slot', async () => {
    const id = await h.createEmpty({ autoInit: true, readme: 'Default' });
    const head = await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/main']);
    let resume: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (resume = resolve));
    async function* requests() {
      yield { repository: repository(id), gitProtocol: '', data: Buffer.alloc(0) };
      // Half a request, then nothing more.
      yield { repository: undefined, gitProtocol: '', data: pktLine(`want ${head} side-band-64k\n`) };
      await stalled;
    }
    const started = Date.now();
    try {
      await expect(collect(h.smartHttp.uploadPack(requests()))).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED, reason: 'git_idle_timeout' });
    } finally {
      resume();
    }
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000 - 100);
    expect(elapsed).toBeLessThan(IDLE_SECONDS * 1000 + 3000);
    // The only slot is free again.
    const clone = path.join(h.scratch('after-stall'), 'repo');
    await gitOk(['clone', '--quiet', h.url(id), clone]);
    expect(await gitOk(['rev-parse', 'HEAD'], { cwd: clone })).toBe(head);
  });

  it('cuts off a client that stops reading, answers others RESOURCE_EXHAUSTED at once meanwhile, then serves them', async () => {
    // 8 MiB of random data: several times what the buffers between git and the client hold.
    const id = await h.createEmpty();
    const work = await workingCopy();
    const head = await commitRandom(work, 'big.bin', 8 * 1024 * 1024);
    // Straight into the repository: the pack is over this service's MAX_PUSH_SIZE.
    await gitOk(['push', '--quiet', h.gitDir(id), 'main'], { cwd: work });

    const reader = new AbortController();
    async function* request() {
      yield { repository: repository(id), gitProtocol: '', data: wantAll(head) };
    }
    const iterator = h.smartHttp.uploadPack(request(), { signal: reader.signal })[Symbol.asyncIterator]();
    try {
      // The transfer has begun; the client reads no further.
      expect((await iterator.next()).done).toBe(false);

      const asked = Date.now();
      const refused = collect(h.smartHttp.uploadPack((async function* () {
        yield { repository: repository(id), gitProtocol: '', data: wantAll(head) };
      })()));
      await expect(refused).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED, reason: 'git_storage_busy' });
      expect(Date.now() - asked).toBeLessThan(1000);

      // Once the buffers are full git moves nothing more (no keep-alive either: it cannot write), so [git.timeout]
      // IDLE after that it is gone and its slot with it, though the stalled call is still open. (When the buffers
      // fill depends on how fast git packs on a busy machine, hence the polling.)
      let served: Buffer | undefined;
      for (const giveUpAt = Date.now() + 30_000; served === undefined && Date.now() < giveUpAt; ) {
        await sleep(500);
        served = await collect(
          h.smartHttp.uploadPack(
            (async function* () {
              yield { repository: repository(id), gitProtocol: '', data: wantAll(head) };
            })(),
          ),
        ).catch((error: unknown) => {
          expect(error).toMatchObject({ code: Code.RESOURCE_EXHAUSTED });
          return undefined;
        });
      }
      if (served === undefined) throw new Error('the stalled fetch kept its slot');
      expect(served.length).toBeGreaterThan(8 * 1024 * 1024);
    } finally {
      reader.abort();
      await iterator.return?.();
    }
  });
});

describe('[repository] MAX_PUSH_SIZE', () => {
  it("refuses a push whose pack is over the limit with git's message, and moves nothing", async () => {
    const id = await h.createEmpty();
    const work = await workingCopy();
    const small = await commitRandom(work, 'small.bin', 1000);
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    const before = (await h.pushedEvents()).length;

    await commitRandom(work, 'big.bin', 2 * MAX_PUSH_SIZE);
    const pushed = await git(['push', h.url(id), 'main'], { cwd: work });
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('remote: fatal: pack exceeds maximum allowed size');
    expect(pushed.stderr).toMatch(/unpack failed|remote rejected/);
    expect(await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/main'])).toBe(small);
    expect((await h.pushedEvents()).length).toBe(before);
  });
});

describe('fetching by object id', () => {
  it('refuses a commit force-pushed away (protocol v0 and v2) and still serves reachable ones', async () => {
    const id = await h.createEmpty();
    const work = await workingCopy();
    const base = await commitRandom(work, 'a.txt', 10);
    const secret = await commitRandom(work, 'secret.txt', 10);
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    await gitOk(['reset', '--quiet', '--hard', base], { cwd: work });
    const replacement = await commitRandom(work, 'b.txt', 10);
    await gitOk(['push', '--quiet', '--force', h.url(id), 'main'], { cwd: work });
    // The object is still on disk (only gc removes it, later)...
    expect(await gitOk(['--git-dir', h.gitDir(id), 'cat-file', '-t', secret])).toBe('commit');

    for (const version of ['0', '2']) {
      const clone = h.scratch(`by-id-v${version}`);
      await gitOk(['init', '--quiet', clone]);
      // ...but no ref reaches it, so nobody fetches it by id.
      const refused = await git(['-c', `protocol.version=${version}`, 'fetch', h.url(id), secret], { cwd: clone });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`not our ref ${secret}`);
      expect((await git(['cat-file', '-e', secret], { cwd: clone })).code).not.toBe(0);
      // A commit behind a branch tip may be fetched by id, and so may the tip.
      await gitOk(['-c', `protocol.version=${version}`, 'fetch', '--quiet', h.url(id), base], { cwd: clone });
      await gitOk(['-c', `protocol.version=${version}`, 'fetch', '--quiet', h.url(id), replacement], { cwd: clone });
      expect(await gitOk(['rev-parse', 'FETCH_HEAD'], { cwd: clone })).toBe(replacement);
    }
  });
});
