/**
 * `[cron.git_gc_repos]`: git-storage runs `git gc` over every repository on its schedule (here every second), with
 * `[git] GC_ARGS` and the task's ARGS; the loose objects pushes leave behind end up in one pack, and pushes running
 * meanwhile are not disturbed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeEnvKey } from '@cairn/config';
import { type GitStorageHarness, gitOk, startGitStorage } from './harness';

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage({
    [encodeEnvKey('cron.git_gc_repos', 'SCHEDULE')]: '@every 1s',
    [encodeEnvKey('git', 'GC_ARGS')]: '--quiet',
    [encodeEnvKey('cron.git_gc_repos', 'ARGS')]: '--keep-largest-pack',
  });
});

afterAll(async () => {
  await h.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `git count-objects -v` as numbers. */
async function objectCounts(gitDir: string): Promise<Record<string, number>> {
  const lines = (await gitOk(['--git-dir', gitDir, 'count-objects', '-v'])).split('\n');
  return Object.fromEntries(lines.map((line) => line.split(': ')).map(([key, value]) => [key, Number(value)]));
}

it('packs every repository on its schedule, keeping every ref intact', async () => {
  const ids = [await h.createEmpty(), await h.createEmpty()];
  const work = h.scratch('gc-work');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  for (let i = 0; i < 3; i++) {
    writeFileSync(path.join(work, `file-${i}.txt`), `content ${i}\n`);
    await gitOk(['add', '.'], { cwd: work });
    await gitOk(['commit', '--quiet', '-m', `commit ${i}`], { cwd: work });
    // Small pushes are unpacked into loose objects (receive.unpackLimit).
    for (const id of ids) await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
  }
  const head = await gitOk(['rev-parse', 'HEAD'], { cwd: work });

  for (const id of ids) {
    let counts = await objectCounts(h.gitDir(id));
    for (const giveUpAt = Date.now() + 20_000; counts.count !== 0 && Date.now() < giveUpAt; ) {
      await sleep(200);
      counts = await objectCounts(h.gitDir(id));
    }
    expect(counts.count).toBe(0);
    expect(counts.packs).toBeGreaterThanOrEqual(1);
    expect(await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/main'])).toBe(head);
    await gitOk(['--git-dir', h.gitDir(id), 'fsck', '--no-dangling']);
  }
});
