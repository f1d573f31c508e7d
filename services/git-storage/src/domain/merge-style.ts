/** The ways a pull request's head can be merged into its base branch (Gitea's merge styles that touch git). */
import { CairnError } from '@cairn/rpc';

export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'] as const;
export type MergeStyle = (typeof MERGE_STYLES)[number];

/** INVALID_ARGUMENT (reason `invalid_merge_style`) for anything but the five styles. */
export function parseMergeStyle(style: string): MergeStyle {
  const known = MERGE_STYLES.find((candidate) => candidate === style);
  if (known === undefined) throw CairnError.invalid(`unknown merge style "${style.slice(0, 40)}"`, { reason: 'invalid_merge_style' });
  return known;
}

/** Whether the style writes a commit of its own, with the request's message, author and committer. */
export function writesMergeCommit(style: MergeStyle): boolean {
  return style === 'merge' || style === 'squash' || style === 'rebase-merge';
}

/** Whether the style replays the head's commits (their committer is the request's committer). */
export function replaysCommits(style: MergeStyle): boolean {
  return style === 'rebase' || style === 'rebase-merge';
}
