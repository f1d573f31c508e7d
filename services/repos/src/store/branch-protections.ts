/** The `branch_protections` table: a repository's protection rules with their allow lists of user and team ids. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type ValueExpression } from '@cairn/db';
import type { AllowLists, ProtectionRule, ProtectionSettings } from '../protection/rule';

const protectionRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  rule_name: z.string(),
  priority: z.number(),
  enable_push: z.boolean(),
  enable_push_whitelist: z.boolean(),
  push_whitelist_user_ids: z.array(z.number()),
  push_whitelist_team_ids: z.array(z.number()),
  push_whitelist_deploy_keys: z.boolean(),
  enable_force_push: z.boolean(),
  enable_force_push_allowlist: z.boolean(),
  force_push_allowlist_user_ids: z.array(z.number()),
  force_push_allowlist_team_ids: z.array(z.number()),
  force_push_allowlist_deploy_keys: z.boolean(),
  enable_merge_whitelist: z.boolean(),
  merge_whitelist_user_ids: z.array(z.number()),
  merge_whitelist_team_ids: z.array(z.number()),
  enable_status_check: z.boolean(),
  status_check_contexts: z.array(z.string()),
  required_approvals: z.number(),
  enable_approvals_whitelist: z.boolean(),
  approvals_whitelist_user_ids: z.array(z.number()),
  approvals_whitelist_team_ids: z.array(z.number()),
  block_on_rejected_reviews: z.boolean(),
  block_on_official_review_requests: z.boolean(),
  block_on_outdated_branch: z.boolean(),
  dismiss_stale_approvals: z.boolean(),
  ignore_stale_approvals: z.boolean(),
  require_signed_commits: z.boolean(),
  protected_file_patterns: z.string(),
  unprotected_file_patterns: z.string(),
  block_admin_merge_override: z.boolean(),
  created: z.date(),
  updated: z.date(),
});
type ProtectionColumns = z.infer<typeof protectionRow>;

const COLUMNS = sql.join(
  Object.keys(protectionRow.shape).map((name) => sql.identifier([name])),
  sql.fragment`, `,
);

function toRule(row: ProtectionColumns): ProtectionRule {
  return {
    id: row.id,
    repoId: row.repo_id,
    ruleName: row.rule_name,
    priority: row.priority,
    enablePush: row.enable_push,
    enablePushWhitelist: row.enable_push_whitelist,
    pushWhitelistDeployKeys: row.push_whitelist_deploy_keys,
    enableForcePush: row.enable_force_push,
    enableForcePushAllowlist: row.enable_force_push_allowlist,
    forcePushAllowlistDeployKeys: row.force_push_allowlist_deploy_keys,
    enableMergeWhitelist: row.enable_merge_whitelist,
    enableStatusCheck: row.enable_status_check,
    statusCheckContexts: row.status_check_contexts,
    requiredApprovals: row.required_approvals,
    enableApprovalsWhitelist: row.enable_approvals_whitelist,
    blockOnRejectedReviews: row.block_on_rejected_reviews,
    blockOnOfficialReviewRequests: row.block_on_official_review_requests,
    blockOnOutdatedBranch: row.block_on_outdated_branch,
    dismissStaleApprovals: row.dismiss_stale_approvals,
    ignoreStaleApprovals: row.ignore_stale_approvals,
    requireSignedCommits: row.require_signed_commits,
    protectedFilePatterns: row.protected_file_patterns,
    unprotectedFilePatterns: row.unprotected_file_patterns,
    blockAdminMergeOverride: row.block_admin_merge_override,
    allowLists: {
      push: { userIds: row.push_whitelist_user_ids, teamIds: row.push_whitelist_team_ids },
      forcePush: { userIds: row.force_push_allowlist_user_ids, teamIds: row.force_push_allowlist_team_ids },
      merge: { userIds: row.merge_whitelist_user_ids, teamIds: row.merge_whitelist_team_ids },
      approvals: { userIds: row.approvals_whitelist_user_ids, teamIds: row.approvals_whitelist_team_ids },
    },
    created: row.created,
    updated: row.updated,
  };
}

const ids = (values: readonly number[]) => sql.array(values, 'int8');

/** Every column a write sets, as `column = value` pairs. */
function assignments(settings: ProtectionSettings, lists: AllowLists): Array<[string, ValueExpression]> {
  const values: Record<string, ValueExpression> = {
    priority: settings.priority,
    enable_push: settings.enablePush,
    enable_push_whitelist: settings.enablePushWhitelist,
    push_whitelist_user_ids: ids(lists.push.userIds),
    push_whitelist_team_ids: ids(lists.push.teamIds),
    push_whitelist_deploy_keys: settings.pushWhitelistDeployKeys,
    enable_force_push: settings.enableForcePush,
    enable_force_push_allowlist: settings.enableForcePushAllowlist,
    force_push_allowlist_user_ids: ids(lists.forcePush.userIds),
    force_push_allowlist_team_ids: ids(lists.forcePush.teamIds),
    force_push_allowlist_deploy_keys: settings.forcePushAllowlistDeployKeys,
    enable_merge_whitelist: settings.enableMergeWhitelist,
    merge_whitelist_user_ids: ids(lists.merge.userIds),
    merge_whitelist_team_ids: ids(lists.merge.teamIds),
    enable_status_check: settings.enableStatusCheck,
    status_check_contexts: sql.array(settings.statusCheckContexts, 'text'),
    required_approvals: settings.requiredApprovals,
    enable_approvals_whitelist: settings.enableApprovalsWhitelist,
    approvals_whitelist_user_ids: ids(lists.approvals.userIds),
    approvals_whitelist_team_ids: ids(lists.approvals.teamIds),
    block_on_rejected_reviews: settings.blockOnRejectedReviews,
    block_on_official_review_requests: settings.blockOnOfficialReviewRequests,
    block_on_outdated_branch: settings.blockOnOutdatedBranch,
    dismiss_stale_approvals: settings.dismissStaleApprovals,
    ignore_stale_approvals: settings.ignoreStaleApprovals,
    require_signed_commits: settings.requireSignedCommits,
    protected_file_patterns: settings.protectedFilePatterns,
    unprotected_file_patterns: settings.unprotectedFilePatterns,
    block_admin_merge_override: settings.blockAdminMergeOverride,
  };
  return Object.entries(values);
}

/** A repository's rules, in no particular order (callers sort with `inPriorityOrder`). */
export async function listProtections(db: CommonQueryMethods, repoId: number): Promise<ProtectionRule[]> {
  const rows = await db.any(sql.type(protectionRow)`SELECT ${COLUMNS} FROM branch_protections WHERE repo_id = ${repoId}`);
  return rows.map(toRule);
}

/** The rule named exactly `ruleName`; `lock` holds it for a change in the transaction. */
export async function findProtection(db: CommonQueryMethods, repoId: number, ruleName: string, lock = false): Promise<ProtectionRule | undefined> {
  const row = await db.maybeOne(sql.type(protectionRow)`
    SELECT ${COLUMNS} FROM branch_protections WHERE repo_id = ${repoId} AND rule_name = ${ruleName}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}
  `);
  return row === null ? undefined : toRule(row);
}

/** Inserts a rule; priority 0 places it after every other rule (Gitea: the highest priority so far, plus one). */
export async function insertProtection(
  tx: DatabaseTransactionConnection,
  repoId: number,
  ruleName: string,
  settings: ProtectionSettings,
  lists: AllowLists,
): Promise<ProtectionRule> {
  const pairs = assignments(settings, lists).filter(([column]) => column !== 'priority');
  const priority =
    settings.priority !== 0
      ? sql.fragment`${settings.priority}`
      : sql.fragment`(SELECT COALESCE(MAX(priority), 0) + 1 FROM branch_protections WHERE repo_id = ${repoId})`;
  const row = await tx.one(sql.type(protectionRow)`
    INSERT INTO branch_protections (repo_id, rule_name, priority, ${sql.join(
      pairs.map(([column]) => sql.identifier([column])),
      sql.fragment`, `,
    )})
    VALUES (${repoId}, ${ruleName}, ${priority}, ${sql.join(
      pairs.map(([, value]) => sql.fragment`${value}`),
      sql.fragment`, `,
    )})
    RETURNING ${COLUMNS}
  `);
  return toRule(row);
}

/** Rewrites rule `id`; a `ruleName` another rule of the repository has fails the table's unique constraint. */
export async function updateProtection(
  tx: DatabaseTransactionConnection,
  id: number,
  ruleName: string,
  settings: ProtectionSettings,
  lists: AllowLists,
): Promise<ProtectionRule> {
  const row = await tx.one(sql.type(protectionRow)`
    UPDATE branch_protections
    SET rule_name = ${ruleName}, ${sql.join(
      assignments(settings, lists).map(([column, value]) => sql.fragment`${sql.identifier([column])} = ${value}`),
      sql.fragment`, `,
    )}, updated = now()
    WHERE id = ${id}
    RETURNING ${COLUMNS}
  `);
  return toRule(row);
}

/** Deletes the rule named `ruleName`; false when there was none. */
export async function deleteProtection(db: CommonQueryMethods, repoId: number, ruleName: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM branch_protections WHERE repo_id = ${repoId} AND rule_name = ${ruleName}`);
  return result.rowCount > 0;
}

/** Gives the rules `ids` priorities 1, 2, … in that order; ids of other repositories are ignored. */
export async function setPriorities(db: CommonQueryMethods, repoId: number, ruleIds: readonly number[]): Promise<void> {
  if (ruleIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE branch_protections AS p SET priority = o.priority, updated = now()
    FROM unnest(${ids(ruleIds)}::int8[]) WITH ORDINALITY AS o(id, priority)
    WHERE p.id = o.id AND p.repo_id = ${repoId}
  `);
}
