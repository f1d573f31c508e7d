/**
 * Resolving what users name (a branch, a tag, a full or short commit id, HEAD) to a commit. Only those names are
 * accepted, never git's revision expressions (`main~2`, `:/text`, `@{…}`): a request names one thing, and a lookup
 * costs a bounded amount of work. Branches win over tags and tags over commit ids, as in Gitea.
 */
import { CairnError } from '@cairn/rpc';
import { runGit } from './command';
import { BRANCH_PREFIX, TAG_PREFIX, assertValidRevision, isCommitIdLike, refNameProblem } from './refs';

export type RevisionKind = 'branch' | 'tag' | 'commit';

export interface ResolvedRevision {
  /** The commit (tags peeled). */
  sha: string;
  kind: RevisionKind;
  /** `refs/heads/<name>` or `refs/tags/<name>`; empty for commit ids. */
  refName: string;
  /** The branch or tag name, or the commit id as given. */
  name: string;
}

/** The branch HEAD names (which may not exist yet); empty when HEAD is detached or missing. */
export async function headBranch(gitDir: string): Promise<string> {
  const { stdout, exitCode } = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { gitDir, okExitCodes: [0, 1, 128] });
  const ref = stdout.toString('utf8').trim();
  return exitCode === 0 && ref.startsWith(BRANCH_PREFIX) ? ref.slice(BRANCH_PREFIX.length) : '';
}

/** Whether the repository has no branch at all (Gitea's `IsEmpty`). */
export async function isEmptyRepository(gitDir: string): Promise<boolean> {
  const { stdout } = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', BRANCH_PREFIX], { gitDir });
  return stdout.length === 0;
}

/**
 * Answers, for each spec, the commit git peels it to (`<spec>^{commit}`), or undefined: one `cat-file
 * --batch-check` for all of them. Specs are full ref names or object ids, never options (the process reads them
 * from stdin).
 */
export async function peelToCommits(gitDir: string, specs: readonly string[]): Promise<Array<string | undefined>> {
  if (specs.length === 0) return [];
  const input = specs.map((spec) => `${spec}^{commit}\n`).join('');
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { gitDir, stdin: input });
  const lines = stdout.toString('utf8').split('\n');
  return specs.map((_, index) => {
    const [sha, type] = (lines[index] ?? '').split(' ');
    return type === 'commit' ? sha : undefined;
  });
}

/** NOT_FOUND for a revision that names nothing; FAILED_PRECONDITION on an empty repository. */
async function revisionNotFound(gitDir: string, revision: string): Promise<CairnError> {
  if (await isEmptyRepository(gitDir)) {
    return CairnError.precondition('repository is empty', { reason: 'empty_repository' });
  }
  return CairnError.notFound(`revision "${revision}" does not exist`, { reason: 'revision_not_found' });
}

/**
 * Looks `revision` up as a branch, then a tag, then a commit id; undefined when it names none of them. `''` and
 * `HEAD` mean HEAD's branch. INVALID_ARGUMENT (reason `invalid_revision`) for an option- or range-like revision.
 */
export async function lookupRevision(gitDir: string, revision: string): Promise<ResolvedRevision | undefined> {
  if (revision === '' || revision === 'HEAD') {
    const branch = await headBranch(gitDir);
    if (branch === '') return undefined;
    const [sha] = await peelToCommits(gitDir, [BRANCH_PREFIX + branch]);
    return sha === undefined ? undefined : { sha, kind: 'branch', refName: BRANCH_PREFIX + branch, name: branch };
  }
  assertValidRevision(revision);
  const isRefName = refNameProblem(revision) === undefined;
  const commitLike = isCommitIdLike(revision);
  const specs = [
    ...(isRefName ? [BRANCH_PREFIX + revision, TAG_PREFIX + revision] : []),
    ...(commitLike ? [revision.toLowerCase()] : []),
  ];
  const shas = await peelToCommits(gitDir, specs);
  if (isRefName) {
    const [branchSha, tagSha] = shas;
    if (branchSha !== undefined) return { sha: branchSha, kind: 'branch', refName: BRANCH_PREFIX + revision, name: revision };
    if (tagSha !== undefined) return { sha: tagSha, kind: 'tag', refName: TAG_PREFIX + revision, name: revision };
  }
  const commitSha = commitLike ? shas[shas.length - 1] : undefined;
  // A short id git resolved through a ref of the same name is not that commit id.
  if (commitSha !== undefined && commitSha.startsWith(revision.toLowerCase())) {
    return { sha: commitSha, kind: 'commit', refName: '', name: revision };
  }
  return undefined;
}

/** lookupRevision that answers NOT_FOUND (or FAILED_PRECONDITION on an empty repository) instead of undefined. */
export async function resolveRevision(gitDir: string, revision: string): Promise<ResolvedRevision> {
  const resolved = await lookupRevision(gitDir, revision);
  if (resolved === undefined) throw await revisionNotFound(gitDir, revision === '' ? 'HEAD' : revision);
  return resolved;
}
