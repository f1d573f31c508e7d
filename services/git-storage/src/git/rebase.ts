/**
 * Replaying a branch's commits on another (the rebase merge styles). git 2.39's `merge-tree` cannot take an
 * explicit merge base, so the replay is git's own `git rebase`, in a temporary worktree of the bare repository
 * under the storage's scratch directory, removed afterwards. The worktree has its own HEAD and index: the
 * repository's refs are untouched, only new objects land in its object store.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { CairnError } from '@cairn/rpc';
import { runGit } from './command';
import type { CommitSigning } from './merge';

export type RebaseResult = { ok: true; tip: string } | { ok: false; conflicts: string[] };

/** Runs `work(worktreeDir)` in a detached worktree at `commit`; the worktree is removed whatever happens. */
async function withWorktree<T>(gitDir: string, scratchRoot: string, commit: string, work: (dir: string) => Promise<T>): Promise<T> {
  await mkdir(scratchRoot, { recursive: true });
  const scratch = await mkdtemp(path.join(scratchRoot, 'rebase-'));
  const dir = path.join(scratch, 'tree');
  try {
    await runGit(['worktree', 'add', '--detach', '--quiet', '--end-of-options', dir, commit], { gitDir });
    return await work(dir);
  } finally {
    await runGit(['worktree', 'remove', '--force', '--force', '--end-of-options', dir], { gitDir, okExitCodes: [0, 128] });
    await rm(scratch, { recursive: true, force: true });
    // Drops the worktree's administrative files should `remove` have failed (its directory is gone now).
    await runGit(['worktree', 'prune'], { gitDir });
  }
}

/**
 * The commits of `head` not in `onto`, replayed on `onto` (git's defaults: merge commits linearized, commits
 * whose change is already upstream dropped). The replayed commits keep their authors; their committer is
 * `committerEnv` (GIT_COMMITTER_*); with `sign`, each is signed (`--gpg-sign`). Answers the new tip, or the
 * conflicting paths of the first commit that does not apply.
 */
export async function rebaseOnto(
  gitDir: string,
  scratchRoot: string,
  head: string,
  onto: string,
  committerEnv: NodeJS.ProcessEnv,
  sign?: CommitSigning,
): Promise<RebaseResult> {
  return withWorktree(gitDir, scratchRoot, head, async (cwd) => {
    const args = ['rebase', '--quiet', '--no-autosquash', '--end-of-options', onto];
    const signed = sign === undefined ? args : [...sign.config, 'rebase', `--gpg-sign=${sign.keyId}`, ...args.slice(1)];
    const rebased = await runGit(signed, { cwd, env: { ...committerEnv, ...sign?.env }, okExitCodes: [0, 1] });
    if (rebased.exitCode !== 0) {
      const { stdout } = await runGit(['diff', '--name-only', '-z', '--diff-filter=U'], { cwd });
      const conflicts = stdout.toString('utf8').split('\0').filter((file) => file !== '');
      if (conflicts.length === 0) throw CairnError.internal('git rebase failed', { cause: new Error(rebased.stderr.trim()) });
      return { ok: false, conflicts };
    }
    const { stdout } = await runGit(['rev-parse', '--verify', 'HEAD'], { cwd });
    return { ok: true, tip: stdout.toString('utf8').trim() };
  });
}
