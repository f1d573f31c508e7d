/**
 * Branches and branch protection rules in Gitea's shapes (services/convert/convert.go `ToBranch`,
 * `ToBranchProtection`). A branch carries the rule that protects it and what the caller may do there, as repos'
 * MatchBranchProtection answered for the whole page at once.
 */
import { goTime } from '@cairn/http';
import type { Branch } from '@cairn/proto/cairn/git/v1/git_service';
import type { BranchProtection, BranchProtectionMatch } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type ApiPayloadCommit, type RepoLinks, toPayloadCommit } from './commit';

/** Gitea's `Branch`. */
export interface ApiBranch {
  name: string;
  commit: ApiPayloadCommit;
  protected: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}

export function toApiBranch(branch: Branch, match: BranchProtectionMatch | undefined, links: RepoLinks): ApiBranch {
  if (branch.commit === undefined) throw new Error(`git-storage answered branch ${branch.name} without its commit`);
  const rule = match?.protection;
  return {
    name: branch.name,
    commit: toPayloadCommit(branch.commit, links),
    protected: rule !== undefined,
    required_approvals: rule?.requiredApprovals ?? 0,
    enable_status_check: rule?.enableStatusCheck ?? false,
    status_check_contexts: rule?.statusCheckContexts ?? [],
    user_can_push: match?.userCanPush ?? false,
    user_can_merge: match?.userCanMerge ?? false,
    effective_branch_protection_name: rule?.ruleName ?? '',
  };
}

/**
 * The rule fields as Gitea's JSON names them and repos' BranchProtection holds them, in Gitea's order. The
 * request bodies name the same fields, so one table serves both directions.
 */
export const BRANCH_PROTECTION_FIELDS = [
  ['enable_push', 'enablePush'],
  ['enable_push_whitelist', 'enablePushWhitelist'],
  ['push_whitelist_usernames', 'pushWhitelistUsernames'],
  ['push_whitelist_teams', 'pushWhitelistTeams'],
  ['push_whitelist_deploy_keys', 'pushWhitelistDeployKeys'],
  ['enable_force_push', 'enableForcePush'],
  ['enable_force_push_allowlist', 'enableForcePushAllowlist'],
  ['force_push_allowlist_usernames', 'forcePushAllowlistUsernames'],
  ['force_push_allowlist_teams', 'forcePushAllowlistTeams'],
  ['force_push_allowlist_deploy_keys', 'forcePushAllowlistDeployKeys'],
  ['enable_merge_whitelist', 'enableMergeWhitelist'],
  ['merge_whitelist_usernames', 'mergeWhitelistUsernames'],
  ['merge_whitelist_teams', 'mergeWhitelistTeams'],
  ['enable_status_check', 'enableStatusCheck'],
  ['status_check_contexts', 'statusCheckContexts'],
  ['required_approvals', 'requiredApprovals'],
  ['enable_approvals_whitelist', 'enableApprovalsWhitelist'],
  ['approvals_whitelist_username', 'approvalsWhitelistUsername'],
  ['approvals_whitelist_teams', 'approvalsWhitelistTeams'],
  ['block_on_rejected_reviews', 'blockOnRejectedReviews'],
  ['block_on_official_review_requests', 'blockOnOfficialReviewRequests'],
  ['block_on_outdated_branch', 'blockOnOutdatedBranch'],
  ['dismiss_stale_approvals', 'dismissStaleApprovals'],
  ['ignore_stale_approvals', 'ignoreStaleApprovals'],
  ['require_signed_commits', 'requireSignedCommits'],
  ['protected_file_patterns', 'protectedFilePatterns'],
  ['unprotected_file_patterns', 'unprotectedFilePatterns'],
  ['block_admin_merge_override', 'blockAdminMergeOverride'],
] as const satisfies ReadonlyArray<readonly [string, keyof BranchProtection]>;

export type BranchProtectionField = (typeof BRANCH_PROTECTION_FIELDS)[number][1];

/** Gitea's `BranchProtection`: `branch_name` (deprecated) repeats the rule name. */
export type ApiBranchProtection = Record<string, unknown>;

export function toApiBranchProtection(rule: BranchProtection): ApiBranchProtection {
  const json: ApiBranchProtection = { branch_name: rule.ruleName, rule_name: rule.ruleName, priority: rule.priority };
  for (const [jsonName, field] of BRANCH_PROTECTION_FIELDS) json[jsonName] = rule[field];
  json.created_at = goTime(rule.created);
  json.updated_at = goTime(rule.updated);
  return json;
}
