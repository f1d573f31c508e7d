/**
 * How Gitea's API turns a CreateBranchProtectionOption or an EditBranchProtectionOption into a rule's settings
 * (routers/api/v1/repo/branch.go): the push, whitelist and force-push switches depend on each other, required
 * approvals are never negative, and an edit changes only the fields the request carried — named by their JSON
 * names, as the gateway passes them.
 */
import type { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError } from '@cairn/rpc';
import type { AllowListKind, ProtectionSettings } from './rule';

/** A create request's settings (priority 0 is "after the others", filled in when stored). */
export function settingsForCreate(input: BranchProtection): ProtectionSettings {
  const push = input.enablePush;
  const pushWhitelist = push && input.enablePushWhitelist;
  const forcePush = push && input.enableForcePush;
  const forcePushAllowlist = forcePush && input.enableForcePushAllowlist;
  return {
    priority: input.priority,
    enablePush: push,
    enablePushWhitelist: pushWhitelist,
    pushWhitelistDeployKeys: pushWhitelist && input.pushWhitelistDeployKeys,
    enableForcePush: forcePush,
    enableForcePushAllowlist: forcePushAllowlist,
    forcePushAllowlistDeployKeys: forcePushAllowlist && input.forcePushAllowlistDeployKeys,
    enableMergeWhitelist: input.enableMergeWhitelist,
    enableStatusCheck: input.enableStatusCheck,
    statusCheckContexts: input.statusCheckContexts,
    requiredApprovals: Math.max(input.requiredApprovals, 0),
    enableApprovalsWhitelist: input.enableApprovalsWhitelist,
    blockOnRejectedReviews: input.blockOnRejectedReviews,
    blockOnOfficialReviewRequests: input.blockOnOfficialReviewRequests,
    blockOnOutdatedBranch: input.blockOnOutdatedBranch,
    dismissStaleApprovals: input.dismissStaleApprovals,
    ignoreStaleApprovals: input.ignoreStaleApprovals,
    requireSignedCommits: input.requireSignedCommits,
    protectedFilePatterns: input.protectedFilePatterns,
    unprotectedFilePatterns: input.unprotectedFilePatterns,
    blockAdminMergeOverride: input.blockAdminMergeOverride,
  };
}

/** Plain fields an edit copies as they come, by JSON name. */
const COPIED_FIELDS = {
  priority: 'priority',
  enable_merge_whitelist: 'enableMergeWhitelist',
  enable_status_check: 'enableStatusCheck',
  status_check_contexts: 'statusCheckContexts',
  enable_approvals_whitelist: 'enableApprovalsWhitelist',
  block_on_rejected_reviews: 'blockOnRejectedReviews',
  block_on_official_review_requests: 'blockOnOfficialReviewRequests',
  block_on_outdated_branch: 'blockOnOutdatedBranch',
  dismiss_stale_approvals: 'dismissStaleApprovals',
  ignore_stale_approvals: 'ignoreStaleApprovals',
  require_signed_commits: 'requireSignedCommits',
  protected_file_patterns: 'protectedFilePatterns',
  unprotected_file_patterns: 'unprotectedFilePatterns',
  block_admin_merge_override: 'blockAdminMergeOverride',
} as const satisfies Record<string, keyof ProtectionSettings & keyof BranchProtection>;

function isCopiedField(field: string): field is keyof typeof COPIED_FIELDS {
  return Object.hasOwn(COPIED_FIELDS, field);
}

/** The settings after an edit carrying `fields`. */
export function settingsAfterEdit(current: ProtectionSettings, input: BranchProtection, fields: ReadonlySet<string>): ProtectionSettings {
  const next: ProtectionSettings = { ...current, statusCheckContexts: [...current.statusCheckContexts] };
  const copy = <K extends keyof typeof COPIED_FIELDS>(field: K): void => {
    const key = COPIED_FIELDS[field];
    Object.assign(next, { [key]: input[key] });
  };
  for (const field of fields) if (isCopiedField(field)) copy(field);

  // The whitelist switch counts only when the edit also says whether pushing is on.
  if (fields.has('enable_push')) {
    next.enablePush = input.enablePush;
    if (!input.enablePush) {
      next.enablePushWhitelist = false;
      next.pushWhitelistDeployKeys = false;
    } else if (fields.has('enable_push_whitelist')) {
      next.enablePushWhitelist = input.enablePushWhitelist;
      if (!input.enablePushWhitelist) next.pushWhitelistDeployKeys = false;
      else if (fields.has('push_whitelist_deploy_keys')) next.pushWhitelistDeployKeys = input.pushWhitelistDeployKeys;
    }
  }
  if (fields.has('enable_force_push')) {
    next.enableForcePush = input.enableForcePush;
    if (!input.enableForcePush) {
      next.enableForcePushAllowlist = false;
      next.forcePushAllowlistDeployKeys = false;
    } else if (fields.has('enable_force_push_allowlist')) {
      next.enableForcePushAllowlist = input.enableForcePushAllowlist;
      if (!input.enableForcePushAllowlist) next.forcePushAllowlistDeployKeys = false;
      else if (fields.has('force_push_allowlist_deploy_keys')) next.forcePushAllowlistDeployKeys = input.forcePushAllowlistDeployKeys;
    }
  }
  if (fields.has('required_approvals') && input.requiredApprovals >= 0) next.requiredApprovals = input.requiredApprovals;
  return next;
}

/**
 * The rule's name after an edit: `rule_name` in `fields` renames it (Gitea renames the rule named after a branch
 * when the branch is renamed; its API edit option has no name). An empty new name is refused.
 */
export function ruleNameAfterEdit(current: string, input: BranchProtection, fields: ReadonlySet<string>): string {
  if (!fields.has('rule_name')) return current;
  if (input.ruleName === '') throw CairnError.invalid('rule_name is empty', { reason: 'rule_name_empty' });
  return input.ruleName;
}

/** Where each allow list's names travel: the proto fields and their JSON names. */
export const ALLOW_LIST_FIELDS = {
  push: { users: 'pushWhitelistUsernames', teams: 'pushWhitelistTeams', usersJson: 'push_whitelist_usernames', teamsJson: 'push_whitelist_teams' },
  forcePush: {
    users: 'forcePushAllowlistUsernames',
    teams: 'forcePushAllowlistTeams',
    usersJson: 'force_push_allowlist_usernames',
    teamsJson: 'force_push_allowlist_teams',
  },
  merge: { users: 'mergeWhitelistUsernames', teams: 'mergeWhitelistTeams', usersJson: 'merge_whitelist_usernames', teamsJson: 'merge_whitelist_teams' },
  approvals: {
    users: 'approvalsWhitelistUsername',
    teams: 'approvalsWhitelistTeams',
    usersJson: 'approvals_whitelist_username',
    teamsJson: 'approvals_whitelist_teams',
  },
} as const satisfies Record<AllowListKind, { users: keyof BranchProtection; teams: keyof BranchProtection; usersJson: string; teamsJson: string }>;
