/**
 * Which branch protection rule applies to a branch, which files a rule's patterns name (Gitea's
 * models/git/protected_branch.go, globs from @cairn/text), and what a rule lets a contents-API write do.
 */
import { type GlobOptions, globMatcher } from '@cairn/text';
import type { BranchRule } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';

/** A plain rule name is one branch in any case; a name that is not a valid glob matches only its own text. */
const RULE_NAME_GLOB: GlobOptions = { plainIgnoresCase: true, invalid: 'literal' };
/** Gitea compiles file patterns with `.` and `/` as separators and skips those that do not compile. */
const FILE_PATTERN_GLOB: GlobOptions = { separators: './' };

/** The first rule, in the given (priority) order, that applies to `branch`. */
export function findBranchRule<Rule extends { ruleName: string }>(rules: readonly Rule[], branch: string): Rule | undefined {
  return rules.find((rule) => globMatcher(rule.ruleName, RULE_NAME_GLOB)(branch));
}

/** A `;`-separated list of file patterns as a predicate over paths (compared lower-cased, as Gitea does). */
export function filePatterns(patterns: string): (path: string) => boolean {
  const globs = patterns
    .split(';')
    .map((pattern) => pattern.trim().toLowerCase())
    .filter((pattern) => pattern !== '')
    .map((pattern) => globMatcher(pattern, FILE_PATTERN_GLOB));
  return (path) => {
    const lower = path.toLowerCase();
    return globs.some((glob) => glob(lower));
  };
}

/**
 * Refuses a contents-API write of `paths` on a branch protected by `rule` as Gitea's VerifyBranchProtection does:
 * a writer the rule does not let push may change only unprotected files, nobody may change protected files, and
 * a rule requiring signed commits refuses the write (git-storage holds no signing key: Gitea's ErrUserCannotCommit).
 */
export function checkProtectedWrite(rule: BranchRule | undefined, paths: readonly string[], login: string): void {
  if (rule === undefined) return;
  const cannotCommit = () => CairnError.denied(`user cannot commit to repo [user: ${login.toLowerCase()}]`, { reason: 'user_cannot_commit' });
  const isUnprotected = filePatterns(rule.unprotectedFilePatterns);
  const isProtected = filePatterns(rule.protectedFilePatterns);
  for (const path of paths) {
    if (!rule.canPush && !isUnprotected(path)) throw cannotCommit();
    if (isProtected(path)) throw CairnError.denied(`path is protected and can not be changed [path: ${path}]`, { reason: 'file_protected' });
  }
  if (rule.requireSignedCommits) throw cannotCommit();
}
