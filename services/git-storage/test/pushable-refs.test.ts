import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type GitStorageHarness, git, gitOk, startGitStorage } from './harness';

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage();
});

afterAll(async () => {
  await h.stop();
});

const serverRef = async (id: number, ref: string) => (await git(['--git-dir', h.gitDir(id), 'rev-parse', '--verify', '--quiet', ref])).stdout.trim();

/** A repository whose main has one commit, refs/pull/1/head written as the issues service writes it, and a working copy. */
async function setup(): Promise<{ id: number; work: string; base: string }> {
  const id = await h.createEmpty();
  const work = path.join(h.scratch('work'), 'repo');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  await gitOk(['add', '.'], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', 'base'], { cwd: work });
  await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
  const base = await gitOk(['rev-parse', 'HEAD'], { cwd: work });
  await gitOk(['--git-dir', h.gitDir(id), 'update-ref', 'refs/pull/1/head', base]);
  return { id, work, base };
}

describe('refs a push may write (the update hook)', () => {
  it('declines refs/pull/* and other refs outside branches and tags, one by one, and lets the rest of the push through', async () => {
    const { id, work, base } = await setup();
    writeFileSync(path.join(work, 'b.txt'), 'b\n');
    await gitOk(['add', '.'], { cwd: work });
    await gitOk(['commit', '--quiet', '-m', 'swap'], { cwd: work });
    const swapped = await gitOk(['rev-parse', 'HEAD'], { cwd: work });
    await gitOk(['tag', 'v1'], { cwd: work });
    const before = (await h.pushedEvents()).length;

    const run = await git(['push', h.url(id), 'main', 'v1', 'main:refs/pull/1/head', 'main:refs/custom/x'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('! [remote rejected] main -> refs/pull/1/head (hook declined)');
    expect(run.stderr).toContain('! [remote rejected] main -> refs/custom/x (hook declined)');
    expect(run.stderr).toContain('remote: refusing refs/pull/1/head: a push may only update refs/heads/ and refs/tags/');
    // The pull request's head is the one the issues service wrote; the branch and the tag moved.
    expect(await serverRef(id, 'refs/pull/1/head')).toBe(base);
    expect(await serverRef(id, 'refs/custom/x')).toBe('');
    expect(await serverRef(id, 'refs/heads/main')).toBe(swapped);
    expect(await serverRef(id, 'refs/tags/v1')).toBe(swapped);
    // cairn.git.pushed names only the refs that moved.
    const events = (await h.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0].refUpdates.map((update) => update.ref).sort()).toEqual(['refs/heads/main', 'refs/tags/v1']);
  });

  it('declines deleting refs/pull/*', async () => {
    const { id, work, base } = await setup();
    const run = await git(['push', h.url(id), ':refs/pull/1/head'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('! [remote rejected] refs/pull/1/head (hook declined)');
    expect(await serverRef(id, 'refs/pull/1/head')).toBe(base);
  });
});
