/**
 * The limits on git processes through the built gateway with plain git and raw HTTP: a client that stalls in the
 * middle of its request is cut off after `[git.timeout] IDLE` (408) and meanwhile, with its transfer holding the
 * node's only slot (`[git] MAX_CONCURRENT_TRANSFERS = 1`), another fetch is answered 429 at once; a client that
 * stops reading a clone is cut off and its slot freed; a push over
 * `[repository] MAX_PUSH_SIZE` is refused with git's message; a commit force-pushed away cannot be fetched by id.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { request } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeEnvKey } from '@cairn/config';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';
import { gitTestEnv } from './support/instance';

jest.setTimeout(180_000);

const IDLE_SECONDS = 2;
const MAX_PUSH_SIZE = 5 * 1024 * 1024;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Answer {
  status: number;
  body: string;
  /** Milliseconds from sending the headers to the answer. */
  elapsed: number;
}

describe('git process limits', () => {
  let fixture: Fixture;
  let scratch: string;
  let gitEnv: NodeJS.ProcessEnv;

  const git = (args: string[], cwd = scratch): Promise<Run> =>
    new Promise((resolve) => {
      execFile('git', args, { cwd, env: gitEnv, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
    });

  async function gitOk(args: string[], cwd = scratch): Promise<string> {
    const run = await git(args, cwd);
    if (run.code !== 0) throw new Error(`git ${args.join(' ')} failed (${run.code}):\n${run.stderr}`);
    return run.stdout.trim();
  }

  /** `http://alice:…@host:port/alice/<repo>.git` */
  function remote(repo: string): string {
    const url = new URL(`${fixture.instance.httpUrl}/alice/${repo}.git`);
    url.username = 'alice';
    url.password = USER_PASSWORD;
    return url.toString();
  }

  async function commitFile(cwd: string, file: string, content: string | Buffer): Promise<string> {
    fs.writeFileSync(path.join(cwd, file), content);
    await gitOk(['add', '--', file], cwd);
    await gitOk(['commit', '--quiet', '--message', `add ${file}`], cwd);
    return gitOk(['rev-parse', 'HEAD'], cwd);
  }

  async function createRepo(name: string): Promise<void> {
    const made = await fixture.api.request('POST', '/api/v1/user/repos', { headers: fixture.as('alice'), body: { name } });
    expect(made.status).toBe(201);
  }

  /**
   * POSTs to git-upload-pack: `sent` goes out at once and the request body then stays open (a stalled client) until
   * the answer arrives or `hold` is false and the body ends right away.
   */
  function uploadPack(repo: string, sent: Buffer, hold: boolean): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const req = request(`${fixture.instance.httpUrl}/alice/${repo}.git/git-upload-pack`, {
        method: 'POST',
        headers: { ...fixture.as('alice'), 'content-type': 'application/x-git-upload-pack-request' },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), elapsed: Date.now() - started });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write(sent);
      if (!hold) req.end();
    });
  }

  const pkt = (line: string) => Buffer.concat([Buffer.from((Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')), Buffer.from(line)]);

  beforeAll(async () => {
    fixture = await startFixture('e2e_git_limits', ['alice'], {
      [encodeEnvKey('git.timeout', 'IDLE')]: String(IDLE_SECONDS),
      [encodeEnvKey('git', 'MAX_CONCURRENT_TRANSFERS')]: '1',
      [encodeEnvKey('git', 'MAX_QUEUED_TRANSFERS')]: '0',
      [encodeEnvKey('repository', 'MAX_PUSH_SIZE')]: String(MAX_PUSH_SIZE),
    });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-git-limits-'));
    gitEnv = gitTestEnv(scratch);
    await gitOk(['config', '--global', 'init.defaultBranch', 'main']);
  });

  afterAll(async () => {
    if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
    await fixture?.stop();
  });

  it('cuts off a stalled client after the idle timeout, answering others 429 at once while it holds the slot', async () => {
    await createRepo('stall');
    const work = path.join(scratch, 'stall');
    await gitOk(['clone', '--quiet', remote('stall'), work]);
    const head = await commitFile(work, 'a.txt', 'a\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], work);

    // Half a request, then silence.
    const stalled = uploadPack('stall', pkt(`want ${head} side-band-64k\n`), true);
    // Let the stalled request reach git-storage and take the slot.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = await uploadPack('stall', Buffer.concat([pkt(`want ${head}\n`), Buffer.from('0000'), pkt('done\n')]), false);
    expect(busy.status).toBe(429);
    expect(busy.body).toContain('busy');
    expect(busy.elapsed).toBeLessThan(1500);

    const cut = await stalled;
    expect(cut.status).toBe(408);
    expect(cut.body).toContain('no data moved');
    expect(cut.elapsed).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000 - 100);
    expect(cut.elapsed).toBeLessThan(IDLE_SECONDS * 1000 + 5000);

    // The slot is free again: plain git clones.
    const copy = path.join(scratch, 'stall-copy');
    await gitOk(['clone', '--quiet', remote('stall'), copy]);
    expect(await gitOk(['rev-parse', 'HEAD'], copy)).toBe(head);
  });

  it('cuts off a client that stops reading a clone after the idle timeout, freeing its slot', async () => {
    await createRepo('slow-reader');
    const work = path.join(scratch, 'slow-reader');
    await gitOk(['clone', '--quiet', remote('slow-reader'), work]);
    // 24 MiB of random data in pushes under MAX_PUSH_SIZE: far more than the buffers between git and the client.
    for (let i = 0; i < 6; i++) {
      await commitFile(work, `part-${i}.bin`, randomBytes(4 * 1024 * 1024));
      await gitOk(['push', '--quiet', 'origin', 'main'], work);
    }
    const head = await gitOk(['rev-parse', 'HEAD'], work);

    let completed = false;
    let stalledAt = 0;
    const req = request(`${fixture.instance.httpUrl}/alice/slow-reader.git/git-upload-pack`, {
      method: 'POST',
      headers: { ...fixture.as('alice'), 'content-type': 'application/x-git-upload-pack-request' },
    });
    req.on('error', () => undefined);
    const begun = new Promise<void>((resolve) => {
      req.on('response', (res) => {
        res.once('data', () => {
          // The client reads nothing more (and so never sees the server close the connection either).
          res.pause();
          stalledAt = Date.now();
          resolve();
        });
        res.on('end', () => (completed = true));
      });
    });
    req.end(Buffer.concat([pkt(`want ${head} side-band-64k ofs-delta\n`), Buffer.from('0000'), pkt('done\n')]));
    try {
      await begun;
      // The stalled transfer holds the only slot until it is cut off: fetches are refused (429) until then.
      const copy = path.join(scratch, 'slow-reader-copy');
      let cloned: Run | undefined;
      for (const giveUpAt = Date.now() + 60_000; Date.now() < giveUpAt; ) {
        fs.rmSync(copy, { recursive: true, force: true });
        cloned = await git(['clone', '--quiet', remote('slow-reader'), copy]);
        if (cloned.code === 0) break;
        expect(cloned.stderr).toContain('429');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(cloned?.code).toBe(0);
      expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000 - 100);
      expect(await gitOk(['rev-parse', 'HEAD'], copy)).toBe(head);
      expect(completed).toBe(false);
    } finally {
      req.destroy();
    }
  });

  it("refuses a push over [repository] MAX_PUSH_SIZE with git's message and keeps the branch", async () => {
    await createRepo('big');
    const work = path.join(scratch, 'big');
    await gitOk(['clone', '--quiet', remote('big'), work]);
    const small = await commitFile(work, 'small.txt', 'small\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], work);
    await commitFile(work, 'big.bin', randomBytes(2 * MAX_PUSH_SIZE));
    const pushed = await git(['push', 'origin', 'main'], work);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('remote: fatal: pack exceeds maximum allowed size');
    const branch = await fixture.api.request<{ commit: { id: string } }>('GET', '/api/v1/repos/alice/big/branches/main', { headers: fixture.as('alice') });
    expect(branch.status).toBe(200);
    expect(branch.body.commit.id).toBe(small);
  });

  it('refuses to fetch a commit force-pushed away by its id, with protocol v2 and v0', async () => {
    await createRepo('forced');
    const work = path.join(scratch, 'forced');
    await gitOk(['clone', '--quiet', remote('forced'), work]);
    const base = await commitFile(work, 'a.txt', 'a\n');
    const secret = await commitFile(work, 'secret.txt', 'hunter2\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], work);
    await gitOk(['reset', '--quiet', '--hard', base], work);
    await commitFile(work, 'b.txt', 'b\n');
    await gitOk(['push', '--quiet', '--force', 'origin', 'main'], work);

    for (const version of ['2', '0']) {
      const other = path.join(scratch, `forced-v${version}`);
      await gitOk(['init', '--quiet', other]);
      const refused = await git(['-c', `protocol.version=${version}`, 'fetch', remote('forced'), secret], other);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`not our ref ${secret}`);
      // Reachable history still comes by id.
      await gitOk(['-c', `protocol.version=${version}`, 'fetch', '--quiet', remote('forced'), base], other);
    }
  });
});
