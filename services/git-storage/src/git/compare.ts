/**
 * Comparing two commits the way a pull request shows them: the commits of `head` not in `base` (`base..head`),
 * and the changes of `head` since the merge base (`base...head`) as files with line counts, a diff or patches.
 * Every argument is a resolved object id.
 */
import type { ChangedFile } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { parseDiffTree } from '../domain/diff-tree';
import { runGit } from './command';

/** How many commits `head` has that `base` has not. */
export async function countCommitsBetween(gitDir: string, base: string, head: string): Promise<number> {
  const { stdout } = await runGit(['rev-list', '--count', '--end-of-options', head, `^${base}`], { gitDir });
  return Number(stdout.toString('utf8').trim());
}

/** One page of those commits, newest first (git log's order); every one of them when `limit` ≤ 0. */
export async function listCommitsBetween(gitDir: string, base: string, head: string, skip: number, limit: number): Promise<string[]> {
  const paging = [`--skip=${skip}`, ...(limit > 0 ? [`--max-count=${limit}`] : [])];
  const { stdout } = await runGit(['rev-list', ...paging, '--end-of-options', head, `^${base}`], { gitDir });
  return stdout.toString('utf8').split('\n').filter((line) => line !== '');
}

/** The files `head` changes relative to `mergeBase` (renames detected), in git's path order. */
export async function changedFilesSince(gitDir: string, mergeBase: string, head: string): Promise<ChangedFile[]> {
  if (mergeBase === head) return [];
  // "<commit> <other>" on stdin diffs <other> → <commit> and heads the output with <commit> (diff-tree.ts parses it).
  const { stdout } = await runGit(['diff-tree', '--stdin', '-z', '-r', '-M', '--raw', '--numstat'], { gitDir, stdin: `${head} ${mergeBase}\n` });
  return parseDiffTree(stdout).get(head) ?? [];
}

export const DIFF_FORMATS = ['diff', 'patch'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** The request's format; `''` is "diff". INVALID_ARGUMENT (reason `invalid_diff_format`) for anything else. */
export function parseDiffFormat(format: string): DiffFormat {
  if (format === '') return 'diff';
  const known = DIFF_FORMATS.find((candidate) => candidate === format);
  if (known === undefined) throw CairnError.invalid(`unknown diff format "${format.slice(0, 40)}"`, { reason: 'invalid_diff_format' });
  return known;
}

/**
 * The git command that writes the comparison: `git diff <merge base> <head>` (what `base...head` means) or one
 * mail-formatted patch per commit of `base..head`, oldest first (`git format-patch --stdout`).
 */
export function diffCommand(format: DiffFormat, range: { base: string; mergeBase: string; head: string }, binary: boolean): string[] {
  if (format === 'patch') return ['format-patch', '--stdout', binary ? '--binary' : '--no-binary', `${range.base}..${range.head}`];
  return ['diff', '-M', ...(binary ? ['--binary'] : []), range.mergeBase, range.head];
}
