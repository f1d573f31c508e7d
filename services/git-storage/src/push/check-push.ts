/**
 * The pre-receive checks of a push, run while its objects are still in git's quarantine (the `quarantine`
 * environment makes them visible to the git commands here, and to nothing else). Branch protection rules apply
 * in Gitea's order (routers/private/hook_pre_receive.go): deletion, force push, signed commits, protected
 * files, then whether the pusher may push at all (or changes only unprotected files); a tag matching protected
 * tag rules is refused unless one of them allows the pusher (preReceiveTag). The first refusal is the answer, in
 * Gitea's words.
 */
import type { VerificationKey } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { BranchRule, TagRule } from '@cairn/proto/cairn/git/v1/git_service';
import { parseCommit } from '../domain/git-objects';
import { filePatterns, findBranchRule } from '../domain/branch-rules';
import { tagRefusal } from '../domain/tag-rules';
import { runGit } from '../git/command';
import { readObjects } from '../git/objects';
import type { RefUpdate } from '../git/ref-update';
import { BRANCH_PREFIX, TAG_PREFIX, ZERO_SHA } from '../git/refs';
import { type InstanceKey, verifyCommits } from '../domain/commit-signatures';

export interface PushCheck {
  gitDir: string;
  rules: readonly BranchRule[];
  tagRules: readonly TagRule[];
  /** GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES and GIT_QUARANTINE_PATH of the push. */
  quarantine: NodeJS.ProcessEnv;
  /** accounts' verified keys for these committer e-mail addresses. */
  findKeys(emails: string[]): Promise<VerificationKey[]>;
  /** The instance's signing key: commits it signed (merges Cairn wrote) count as verified, as in Gitea. */
  instanceKey?(): Promise<InstanceKey | undefined>;
}

/** Whether `newSha` descends from `oldSha` (the update is a fast-forward). */
async function isFastForward(check: PushCheck, oldSha: string, newSha: string): Promise<boolean> {
  const { exitCode } = await runGit(['merge-base', '--is-ancestor', oldSha, newSha], {
    gitDir: check.gitDir,
    env: check.quarantine,
    okExitCodes: [0, 1],
  });
  return exitCode === 0;
}

/** The commits the update adds to the branch, newest first (Gitea: `old..new`, or `new --not --all` for a new branch). */
async function addedCommits(check: PushCheck, update: RefUpdate): Promise<string[]> {
  const range = update.oldSha === ZERO_SHA ? [update.newSha, '--not', '--all'] : [update.newSha, `^${update.oldSha}`];
  const { stdout } = await runGit(['rev-list', ...range], { gitDir: check.gitDir, env: check.quarantine });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** The first added commit without a signature from its committer's registered keys, or undefined. */
async function firstUnverifiedCommit(check: PushCheck, shas: readonly string[]): Promise<string | undefined> {
  if (shas.length === 0) return undefined;
  const objects = await readObjects(check.gitDir, shas, check.quarantine);
  const commits = shas.map((sha) => {
    const object = objects.get(sha);
    return object === undefined ? undefined : parseCommit(sha, object.data);
  });
  // A commit the push lacks cannot be verified.
  const missing = commits.findIndex((commit) => commit === undefined);
  if (missing !== -1) return shas[missing];
  // In rev-list's order (newest first), as Gitea reads them.
  const verifications = await verifyCommits(
    commits.filter((commit) => commit !== undefined),
    check.findKeys,
    (verification) => !verification.verified,
    check.instanceKey,
  );
  const first = verifications.findIndex((verification) => !verification.verified);
  return first === -1 ? undefined : shas[first];
}

async function changedFiles(check: PushCheck, oldSha: string, newSha: string): Promise<string[]> {
  const { stdout } = await runGit(['diff', '--name-only', '-z', '--no-renames', oldSha, newSha], {
    gitDir: check.gitDir,
    env: check.quarantine,
  });
  return stdout
    .toString('utf8')
    .split('\0')
    .filter((file) => file !== '');
}

/** Why one update is refused, or undefined when its branch's rule (if any) allows it. */
async function refusalOf(check: PushCheck, update: RefUpdate): Promise<string | undefined> {
  if (update.ref.startsWith(TAG_PREFIX)) return tagRefusal(check.tagRules, update.ref.slice(TAG_PREFIX.length));
  if (!update.ref.startsWith(BRANCH_PREFIX)) return undefined;
  const branch = update.ref.slice(BRANCH_PREFIX.length);
  const rule = findBranchRule(check.rules, branch);
  if (rule === undefined) return undefined;
  if (update.newSha === ZERO_SHA) return rule.canDelete ? undefined : `branch ${branch} is protected from deletion`;
  const existed = update.oldSha !== ZERO_SHA;
  if (existed && !rule.canForcePush && !(await isFastForward(check, update.oldSha, update.newSha))) {
    return `branch ${branch} is protected from force push`;
  }
  if (rule.requireSignedCommits) {
    const unverified = await firstUnverifiedCommit(check, await addedCommits(check, update));
    if (unverified !== undefined) return `branch ${branch} is protected from unverified commit ${unverified}`;
  }
  let changed: Promise<string[]> | undefined;
  const files = () => (changed ??= changedFiles(check, update.oldSha, update.newSha));
  if (existed && rule.protectedFilePatterns !== '') {
    const file = (await files()).find(filePatterns(rule.protectedFilePatterns));
    if (file !== undefined) return `branch ${branch} is protected from changing file ${file}`;
  }
  if (rule.canPush) return undefined;
  // A pusher the rule does not let push may still change unprotected files, and nothing else.
  if (existed && rule.unprotectedFilePatterns !== '' && (await files()).every(filePatterns(rule.unprotectedFilePatterns))) return undefined;
  return `Not allowed to push to protected branch ${branch}`;
}

/** The refusal of the push (the first refused update's), or undefined when every update may go ahead. */
export async function checkPush(check: PushCheck, updates: readonly RefUpdate[]): Promise<string | undefined> {
  for (const update of updates) {
    const refusal = await refusalOf(check, update);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}
