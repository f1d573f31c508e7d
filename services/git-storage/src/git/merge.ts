/**
 * Three-way merges without a working tree: `git merge-tree --write-tree` (git ≥ 2.38) computes the merged tree
 * and the conflicting paths in the object store, `git commit-tree` records it. Ancestry questions are
 * `git merge-base`. Every argument here is a resolved object id.
 */
import { CairnError } from '@cairn/rpc';
import { runGit } from './command';

/** The best common ancestor of `a` and `b`; undefined when the histories are unrelated. */
export async function mergeBase(gitDir: string, a: string, b: string): Promise<string | undefined> {
  const { stdout, exitCode } = await runGit(['merge-base', '--end-of-options', a, b], { gitDir, okExitCodes: [0, 1] });
  return exitCode === 0 ? stdout.toString('utf8').trim() : undefined;
}

/** Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(gitDir: string, ancestor: string, descendant: string): Promise<boolean> {
  const { exitCode } = await runGit(['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant], { gitDir, okExitCodes: [0, 1] });
  return exitCode === 0;
}

/** FAILED_PRECONDITION for two histories without a common commit (Gitea refuses to merge them too). */
export function unrelatedHistories(): CairnError {
  return CairnError.precondition('the base and head have no common history', { reason: 'no_merge_base' });
}

export interface MergedTree {
  /** The merged tree (with conflict markers in conflicting files when `conflicts` is not empty). */
  tree: string;
  /** Paths with conflicts, in git's order; empty for a clean merge. */
  conflicts: string[];
}

/** The three-way merge of `ours` and `theirs` (merge bases found by git, recursively for criss-crosses). */
export async function mergeTrees(gitDir: string, ours: string, theirs: string): Promise<MergedTree> {
  const { stdout, exitCode, stderr } = await runGit(
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', '--end-of-options', ours, theirs],
    { gitDir, okExitCodes: [0, 1, 128] },
  );
  // 128: git refused (unrelated histories) — the only refusal possible with two existing commits.
  if (exitCode === 128) {
    if (/unrelated histories/.test(stderr)) throw unrelatedHistories();
    throw CairnError.internal('git merge-tree failed', { cause: new Error(stderr.trim()) });
  }
  // "<tree>\0<path>\0<path>\0…" (-z, --name-only, no messages).
  const [tree = '', ...paths] = stdout.toString('utf8').split('\0');
  const conflicts = exitCode === 1 ? [...new Set(paths.filter((path) => path !== ''))] : [];
  return { tree, conflicts };
}

/** The tree a commit records. */
export async function treeOf(gitDir: string, commit: string): Promise<string> {
  const { stdout } = await runGit(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], { gitDir });
  return stdout.toString('utf8').trim();
}

export interface NewCommit {
  tree: string;
  parents: readonly string[];
  /** The complete message, as stored. */
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_* (identity.ts). */
  identity: NodeJS.ProcessEnv;
}

/** Writes a commit object (no ref moves) and answers its id. */
export async function commitTree(gitDir: string, commit: NewCommit): Promise<string> {
  const parents = commit.parents.flatMap((parent) => ['-p', parent]);
  const { stdout } = await runGit(['commit-tree', ...parents, commit.tree], { gitDir, env: commit.identity, stdin: commit.message });
  return stdout.toString('utf8').trim();
}
