/**
 * A branch protection rule as repos keeps it (Gitea's models/git/protected_branch.go `ProtectedBranch`), and the
 * order rules apply in: lowest priority number first, then a plain branch name before a glob, then the older rule
 * (Gitea's `ProtectedBranchRules.sort`). The first rule in that order whose name covers a branch is the one that
 * protects it.
 *
 * Allow lists hold user and team ids, resolved from names when a rule is written (Gitea's way): a renamed user
 * stays listed, and someone who later takes the old name is not.
 */
import { type GlobOptions, globMatcher, isGlobPattern } from '@cairn/text';

/**
 * How a rule's name covers branches (Gitea's `ProtectedBranch.Match`): a plain name is one branch, compared
 * case-insensitively; a glob keeps `*` within a path segment; one that does not compile matches only its own text.
 */
const RULE_NAME_GLOB: GlobOptions = { plainIgnoresCase: true, invalid: 'literal' };

export const ALLOW_LIST_KINDS = ['push', 'forcePush', 'merge', 'approvals'] as const;
export type AllowListKind = (typeof ALLOW_LIST_KINDS)[number];

export interface AllowList {
  userIds: number[];
  teamIds: number[];
}
export type AllowLists = Record<AllowListKind, AllowList>;

/** Everything about a rule but its identity and allow lists. */
export interface ProtectionSettings {
  priority: number;
  enablePush: boolean;
  enablePushWhitelist: boolean;
  pushWhitelistDeployKeys: boolean;
  enableForcePush: boolean;
  enableForcePushAllowlist: boolean;
  forcePushAllowlistDeployKeys: boolean;
  enableMergeWhitelist: boolean;
  enableStatusCheck: boolean;
  statusCheckContexts: string[];
  requiredApprovals: number;
  enableApprovalsWhitelist: boolean;
  blockOnRejectedReviews: boolean;
  blockOnOfficialReviewRequests: boolean;
  blockOnOutdatedBranch: boolean;
  dismissStaleApprovals: boolean;
  ignoreStaleApprovals: boolean;
  requireSignedCommits: boolean;
  protectedFilePatterns: string;
  unprotectedFilePatterns: string;
  blockAdminMergeOverride: boolean;
}

export interface ProtectionRule extends ProtectionSettings {
  id: number;
  repoId: number;
  ruleName: string;
  allowLists: AllowLists;
  created: Date;
  updated: Date;
}

/** Rules in the order they apply. */
export function inPriorityOrder<R extends Pick<ProtectionRule, 'id' | 'ruleName' | 'priority' | 'created'>>(rules: readonly R[]): R[] {
  return [...rules].sort(
    (a, b) =>
      a.priority - b.priority ||
      Number(isGlobPattern(a.ruleName)) - Number(isGlobPattern(b.ruleName)) ||
      a.created.getTime() - b.created.getTime() ||
      a.id - b.id,
  );
}

/** The rule protecting `branch`, given rules in priority order; undefined when the branch is not protected. */
export function ruleForBranch<R extends Pick<ProtectionRule, 'ruleName'>>(ordered: readonly R[], branch: string): R | undefined {
  return ordered.find((rule) => globMatcher(rule.ruleName, RULE_NAME_GLOB)(branch));
}
