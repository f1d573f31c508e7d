/**
 * Making the bare repository of a new or forked repository (in the scratch directory storage/create.ts hands
 * over), with the hosting configuration applied.
 */
import { CairnError } from '@cairn/rpc';
import type { InitialFile } from '../domain/initial-files';
import { runGit } from './command';
import { commitFiles } from './commit-files';
import { applyHostingConfig } from './hosting-config';
import { refCreated, updateRefs } from './ref-update';
import { assertValidRefName, branchRef } from './refs';
import { headBranch } from './revisions';

/** `git init --bare` with `branch` as HEAD (sha1 objects, no sample hooks). */
export async function initBareRepository(dir: string, branch: string): Promise<void> {
  assertValidRefName(branch);
  await runGit(['init', '--bare', '--quiet', '--template=', '--object-format=sha1', `--initial-branch=${branch}`, dir]);
  await applyHostingConfig(dir);
}

export interface FirstCommit {
  branch: string;
  files: readonly InitialFile[];
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_* (identity.ts). */
  identity: NodeJS.ProcessEnv;
}

/** Commits `files` as the first commit of `branch` (plumbing only, no working tree); answers its sha. */
export async function writeFirstCommit(gitDir: string, commit: FirstCommit): Promise<string> {
  const sha = await commitFiles(gitDir, {
    parent: undefined,
    edits: commit.files.map((file) => ({ kind: 'write', path: file.path, mode: '100644', content: file.content })),
    message: commit.message,
    identity: commit.identity,
  });
  const moved = await updateRefs(gitDir, [refCreated(branchRef(commit.branch), sha)]);
  if (!moved.ok) throw CairnError.internal('could not create the first branch', { cause: new Error(moved.stderr) });
  return sha;
}

export async function setHeadBranch(gitDir: string, branch: string): Promise<void> {
  await runGit(['symbolic-ref', 'HEAD', branchRef(branch)], { gitDir });
}

/**
 * Copies `source` into the new repository `dir`: every branch and tag, or only `branch` (and the tags in its
 * history). Objects are copied through the pack protocol (`--no-local`), so the fork shares nothing with its
 * source on disk. HEAD names the source's HEAD branch, or `branch`.
 */
export async function cloneForFork(source: string, dir: string, branch: string | undefined): Promise<void> {
  if (branch !== undefined) assertValidRefName(branch);
  const only = branch === undefined ? [] : ['--single-branch', `--branch=${branch}`];
  await runGit(['clone', '--bare', '--no-local', '--quiet', '--template=', ...only, '--', source, dir]);
  // A bare clone remembers where it came from; a fork is a repository of its own.
  await runGit(['config', '--local', '--remove-section', 'remote.origin'], { gitDir: dir, okExitCodes: [0, 128] });
  await applyHostingConfig(dir);
  // An empty source's clone gets git's default HEAD instead of the source's.
  const head = branch ?? (await headBranch(source));
  if (head !== '') await setHeadBranch(dir, head);
}
