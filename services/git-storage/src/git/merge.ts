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

/**
 * The first merge commit on the ancestry path from `head` to `tip` (oldest first: the merge that brought `head`
 * in, as Gitea's getMergeCommit finds it); undefined when the path has none (a fast-forward).
 */
export async function firstMergeOnPath(gitDir: string, head: string, tip: string): Promise<string | undefined> {
  // --reverse is applied after --max-count, so the whole (ids-only) list is read and its first line kept.
  const { stdout } = await runGit(['rev-list', '--ancestry-path', '--merges', '--reverse', '--end-of-options', `${head}..${tip}`], { gitDir });
  const first = stdout.toString('utf8').split('\n', 1)[0]?.trim() ?? '';
  return first === '' ? undefined : first;
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
  /** Signs the commit (`--gpg-sign`) with this key, gpg reached through `env` and the `-c` settings `config`. */
  sign?: CommitSigning;
}

/** What git needs to sign: the key for `--gpg-sign=`, gpg's environment (GNUPGHOME) and `-c` settings. */
export interface CommitSigning {
  keyId: string;
  env: NodeJS.ProcessEnv;
  config: readonly string[];
}

/** Writes a commit object (no ref moves) and answers its id. */
export async function commitTree(gitDir: string, commit: NewCommit): Promise<string> {
  const parents = commit.parents.flatMap((parent) => ['-p', parent]);
  const sign = commit.sign;
  const args = sign === undefined ? ['commit-tree', ...parents, commit.tree] : [...sign.config, 'commit-tree', ...parents, `--gpg-sign=${sign.keyId}`, commit.tree];
  const { stdout } = await runGit(args, { gitDir, env: { ...commit.identity, ...sign?.env }, stdin: commit.message });
  return stdout.toString('utf8').trim();
}
