import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Code } from '@cairn/rpc';
import { type GitStorageHarness, PUSHER, ZERO_SHA, git, gitOk, repository, startGitStorage } from './harness';

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage();
});

afterAll(async () => {
  await h.stop();
});

/** A working copy with `count` commits on main, each adding a file. */
async function workingCopy(count: number): Promise<string> {
  const dir = h.scratch('work');
  await gitOk(['init', '--quiet', '--initial-branch=main', dir]);
  for (let i = 0; i < count; i++) {
    writeFileSync(path.join(dir, `file-${i}.txt`), `content ${i}\n`);
    await gitOk(['add', '.'], { cwd: dir });
    await gitOk(['commit', '--quiet', '-m', `commit ${i}`], { cwd: dir });
  }
  return dir;
}

async function collect(messages: AsyncIterable<{ data: Buffer }>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const { data } of messages) chunks.push(data);
  return Buffer.concat(chunks);
}

describe('InfoRefs', () => {
  it('frames a v0 advertisement with the service line, and a v2 one without', async () => {
    const id = await h.createEmpty();
    const v0 = await collect(h.smartHttp.infoRefs({ repository: repository(id), service: 'git-upload-pack', gitProtocol: '' }));
    expect(v0.subarray(0, 34).toString()).toBe('001e# service=git-upload-pack\n0000');
    const receive = await collect(h.smartHttp.infoRefs({ repository: repository(id), service: 'git-receive-pack', gitProtocol: 'version=2' }));
    // receive-pack has no protocol v2: it keeps the v0 framing.
    expect(receive.toString()).toMatch(/^001f# service=git-receive-pack\n0000/);
    expect(receive.toString()).toContain('report-status');
    const v2 = await collect(h.smartHttp.infoRefs({ repository: repository(id), service: 'git-upload-pack', gitProtocol: 'version=2' }));
    expect(v2.toString()).toMatch(/^000eversion 2\n/);
  });

  it('answers NOT_FOUND for a missing repository and INVALID_ARGUMENT for an unknown service', async () => {
    const missing = h.smartHttp.infoRefs({ repository: repository(h.nextRepoId()), service: 'git-upload-pack', gitProtocol: '' });
    await expect(collect(missing)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const id = await h.createEmpty();
    const unknown = h.smartHttp.infoRefs({ repository: repository(id), service: 'git-upload-archive', gitProtocol: '' });
    await expect(collect(unknown)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });
});

describe('git over smart HTTP', () => {
  it('pushes, clones (v0 and v2) and fetches, and publishes one cairn.git.pushed per push', async () => {
    const id = await h.createEmpty();
    const work = await workingCopy(3);
    const before = (await h.pushedEvents()).length;

    const pushed = await git(['push', h.url(id), 'main'], { cwd: work });
    expect(pushed.code).toBe(0);
    expect(pushed.stderr).toContain('* [new branch]      main -> main');
    const head = await gitOk(['rev-parse', 'HEAD'], { cwd: work });
    expect(await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/main'])).toBe(head);

    for (const version of ['0', '2']) {
      const clone = path.join(h.scratch('clone'), 'repo');
      await gitOk(['-c', `protocol.version=${version}`, 'clone', '--quiet', h.url(id), clone]);
      expect(await gitOk(['rev-parse', 'HEAD'], { cwd: clone })).toBe(head);
      expect(await gitOk(['log', '--format=%s'], { cwd: clone })).toBe('commit 2\ncommit 1\ncommit 0');
    }

    // A second push (a branch and a tag) and a fetch of it.
    await gitOk(['tag', 'v1.0'], { cwd: work });
    writeFileSync(path.join(work, 'more.txt'), 'more\n');
    await gitOk(['add', '.'], { cwd: work });
    await gitOk(['commit', '--quiet', '-m', 'more'], { cwd: work });
    await gitOk(['push', '--quiet', h.url(id), 'main', 'HEAD:refs/heads/feature', 'v1.0'], { cwd: work });
    const clone = path.join(h.scratch('fetch'), 'repo');
    await gitOk(['clone', '--quiet', '--branch', 'main', '--single-branch', h.url(id), clone]);
    await gitOk(['fetch', '--quiet', 'origin', 'feature'], { cwd: clone });
    expect(await gitOk(['rev-parse', 'FETCH_HEAD'], { cwd: clone })).toBe(await gitOk(['rev-parse', 'HEAD'], { cwd: work }));

    const events = (await h.pushedEvents()).slice(before);
    expect(events).toHaveLength(2);
    const [first, second] = events;
    expect(first).toMatchObject({
      pusherId: PUSHER.pusherId,
      repoId: id,
      repoOwnerId: PUSHER.repoOwnerId,
      repoPrivate: true,
      refUpdates: [{ ref: 'refs/heads/main', oldSha: ZERO_SHA, newSha: head }],
      commitCount: 3,
    });
    expect(first.meta).toMatchObject({ actorId: PUSHER.pusherId, repoId: id });
    expect(first.pushedAt).toBeInstanceOf(Date);
    const newHead = await gitOk(['rev-parse', 'HEAD'], { cwd: work });
    expect(new Set(second.refUpdates.map((update) => update.ref))).toEqual(
      new Set(['refs/heads/main', 'refs/heads/feature', 'refs/tags/v1.0']),
    );
    expect(second.refUpdates.find((update) => update.ref === 'refs/heads/main')).toEqual({
      ref: 'refs/heads/main',
      oldSha: head,
      newSha: newHead,
    });
    // Only the one new commit: feature and the tag point at commits the repository already had or just got.
    expect(second.commitCount).toBe(1);
  });

  it('publishes deletions and nothing for a push that changes no ref', async () => {
    const id = await h.createEmpty();
    const work = await workingCopy(1);
    await gitOk(['push', '--quiet', h.url(id), 'main', 'main:refs/heads/old'], { cwd: work });
    const before = (await h.pushedEvents()).length;
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    expect((await h.pushedEvents()).length).toBe(before);

    const old = await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/old']);
    await gitOk(['push', '--quiet', h.url(id), ':refs/heads/old'], { cwd: work });
    const events = (await h.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ refUpdates: [{ ref: 'refs/heads/old', oldSha: old, newSha: ZERO_SHA }], commitCount: 0 });
  });

  it('serves partial clones (uploadpack.allowFilter)', async () => {
    const id = await h.createEmpty();
    const work = await workingCopy(2);
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    const clone = path.join(h.scratch('partial'), 'repo');
    await gitOk(['clone', '--quiet', '--filter=blob:none', h.url(id), clone]);
    expect(await gitOk(['config', 'remote.origin.promisor'], { cwd: clone })).toBe('true');
  });

  it('refuses a receive-pack without a pusher, and an empty request stream', async () => {
    const id = await h.createEmpty();
    async function* requests() {
      yield { repository: repository(id), gitProtocol: '', push: undefined, rules: [], tagRules: [], data: Buffer.alloc(0) };
    }
    await expect(collect(h.smartHttp.receivePack(requests()))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'push_required' });
    async function* nothing(): AsyncGenerator<{ repository: undefined; gitProtocol: string; data: Buffer }> {}
    await expect(collect(h.smartHttp.uploadPack(nothing()))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('reports an unknown repository as an HTTP error to git', async () => {
    const run = await git(['ls-remote', h.url(h.nextRepoId())]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not found|404/i);
  });
});
