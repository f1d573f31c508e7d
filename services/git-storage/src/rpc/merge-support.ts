/**
 * What the merge RPCs share (rpc/merge-service.ts, rpc/update-branch.ts): branch tips, the conflict refusal and
 * where temporary worktrees go.
 */
import path from 'node:path';
import type { Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code } from '@cairn/rpc';
import { branchRef } from '../git/refs';
import { peelToCommits } from '../git/revisions';
import { DEFAULT_STORAGE } from '../storage/layout';

export const branchNotFound = (name: string) => CairnError.notFound(`branch "${name}" does not exist`, { reason: 'branch_not_found' });

/** The most conflicting paths a merge_conflict message names. */
const MAX_LISTED_CONFLICTS = 100;

/** ABORTED (reason `merge_conflict`) naming the conflicting paths. */
export function mergeConflict(files: readonly string[]): CairnError {
  const listed = files.slice(0, MAX_LISTED_CONFLICTS).join(', ');
  const more = files.length > MAX_LISTED_CONFLICTS ? ` and ${files.length - MAX_LISTED_CONFLICTS} more` : '';
  return new CairnError(Code.ABORTED, `merge conflict in: ${listed}${more}`, { reason: 'merge_conflict' });
}

/** The tip of branch `name`; NOT_FOUND (reason `branch_not_found`) when it does not exist. */
export async function branchTip(gitDir: string, name: string): Promise<string> {
  const [sha] = await peelToCommits(gitDir, [branchRef(name)]);
  if (sha === undefined) throw branchNotFound(name);
  return sha;
}

/** Where merges make their temporary worktrees: `<root>/<storage>/.tmp` (no storage's hash directory starts with "."). */
export function scratchRoot(root: string, repository: Repository): string {
  return path.join(root, repository.storage === '' ? DEFAULT_STORAGE : repository.storage, '.tmp');
}
