/**
 * What the merge RPCs accept as the two sides of a comparison: a full commit id, a full ref name
 * (`refs/pull/3/head`, `refs/heads/main`) or a branch name. Nothing else (no abbreviated ids, no revision
 * expressions), so every side names exactly one commit and never reaches git as an option.
 */
import { CairnError } from '@cairn/rpc';
import { BRANCH_PREFIX, refNameProblem } from './refs';
import { peelToCommits } from './revisions';

/** A full sha1 (40) or sha256 (64) object id. */
const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

export function isFullCommitId(value: string): boolean {
  return FULL_OBJECT_ID.test(value);
}

/** `value` lower-cased; INVALID_ARGUMENT (reason `invalid_commit_id`) unless it is a full object id. */
export function parseCommitId(value: string, field: string): string {
  if (!isFullCommitId(value)) {
    throw CairnError.invalid(`${field} "${value.slice(0, 80)}" is not a full commit id`, { reason: 'invalid_commit_id' });
  }
  return value.toLowerCase();
}

/**
 * The spec git peels: a lower-cased commit id, the full ref name as given, or `refs/heads/<name>`.
 * INVALID_ARGUMENT (reason `invalid_revision`) for anything else.
 */
export function commitishSpec(value: string, field: string): string {
  if (isFullCommitId(value)) return value.toLowerCase();
  const problem = refNameProblem(value);
  if (problem !== undefined) {
    throw CairnError.invalid(`${field} "${value.slice(0, 200)}" is not a commit id or ref name: ${problem}`, { reason: 'invalid_revision' });
  }
  if (value.startsWith('refs/')) return value;
  return BRANCH_PREFIX + value;
}

/** The commits the (validated) specs name, in order; NOT_FOUND (reason `revision_not_found`) for one that names none. */
export async function resolveCommitishes(gitDir: string, specs: readonly { spec: string; value: string }[]): Promise<string[]> {
  const shas = await peelToCommits(gitDir, specs.map((item) => item.spec));
  return specs.map((item, index) => {
    const sha = shas[index];
    if (sha === undefined) throw CairnError.notFound(`revision "${item.value}" does not exist`, { reason: 'revision_not_found' });
    return sha;
  });
}
