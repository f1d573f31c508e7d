/**
 * BranchProtectionService: a repository's branch protection rules (Gitea's routers/api/v1/repo/branch.go). Its
 * admins manage them — changes are refused on archived repositories — and anyone who may read the code learns
 * which rule protects a branch and what it lets them do (MatchBranchProtection, for branch answers).
 */
import { UniqueIntegrityConstraintViolationError } from '@cairn/db';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import {
  BranchProtection as BranchProtectionMessage,
  type BranchProtection,
  type BranchProtectionServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { AccessMode, OWNER_ORG, unitMode } from '../domain/access';
import { allowListNames, listsInRequest, namesOf, resolveAllowLists, withLists, type AllowListNames } from '../protection/allow-list-names';
import { rulesListTeams, userCanForcePush, userCanMerge, userCanPush, userIsOfficialReviewer, type RuleSubject } from '../protection/allow-lists';
import { ALLOW_LIST_KINDS, inPriorityOrder, ruleForBranch, type ProtectionRule } from '../protection/rule';
import { ruleNameAfterEdit, settingsAfterEdit, settingsForCreate } from '../protection/settings';
import {
  deleteProtection,
  findProtection,
  insertProtection,
  listProtections,
  setPriorities,
  updateProtection,
} from '../store/branch-protections';
import type { RepoRow } from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadAdminRepo, loadRepoForViewer, requireAccess, type RepoForViewer } from './repo-access';
import { userTeams } from './viewer-teams';

const CODE = 'repo.code';
const NO_NAMES: AllowListNames = { users: new Map(), teams: new Map() };

function protectionExists(cause?: unknown): CairnError {
  return CairnError.exists('Branch protection already exist', { reason: 'branch_protection_exists', cause });
}

function protectionNotFound(ruleName: string): CairnError {
  return CairnError.notFound(`branch protection does not exist [rule_name: ${ruleName}]`, { reason: 'branch_protection_not_found' });
}

/** A rule as answered; allow lists named with `names` (empty lists without them). */
export function toBranchProtection(rule: ProtectionRule, names: AllowListNames = NO_NAMES): BranchProtection {
  const { push, forcePush, merge, approvals } = rule.allowLists;
  return {
    id: rule.id,
    ruleName: rule.ruleName,
    priority: rule.priority,
    enablePush: rule.enablePush,
    enablePushWhitelist: rule.enablePushWhitelist,
    pushWhitelistUsernames: namesOf(push.userIds, names.users),
    pushWhitelistTeams: namesOf(push.teamIds, names.teams),
    pushWhitelistDeployKeys: rule.pushWhitelistDeployKeys,
    enableForcePush: rule.enableForcePush,
    enableForcePushAllowlist: rule.enableForcePushAllowlist,
    forcePushAllowlistUsernames: namesOf(forcePush.userIds, names.users),
    forcePushAllowlistTeams: namesOf(forcePush.teamIds, names.teams),
    forcePushAllowlistDeployKeys: rule.forcePushAllowlistDeployKeys,
    enableMergeWhitelist: rule.enableMergeWhitelist,
    mergeWhitelistUsernames: namesOf(merge.userIds, names.users),
    mergeWhitelistTeams: namesOf(merge.teamIds, names.teams),
    enableStatusCheck: rule.enableStatusCheck,
    statusCheckContexts: rule.statusCheckContexts,
    requiredApprovals: rule.requiredApprovals,
    enableApprovalsWhitelist: rule.enableApprovalsWhitelist,
    approvalsWhitelistUsername: namesOf(approvals.userIds, names.users),
    approvalsWhitelistTeams: namesOf(approvals.teamIds, names.teams),
    blockOnRejectedReviews: rule.blockOnRejectedReviews,
    blockOnOfficialReviewRequests: rule.blockOnOfficialReviewRequests,
    blockOnOutdatedBranch: rule.blockOnOutdatedBranch,
    dismissStaleApprovals: rule.dismissStaleApprovals,
    ignoreStaleApprovals: rule.ignoreStaleApprovals,
    requireSignedCommits: rule.requireSignedCommits,
    protectedFilePatterns: rule.protectedFilePatterns,
    unprotectedFilePatterns: rule.unprotectedFilePatterns,
    blockAdminMergeOverride: rule.blockAdminMergeOverride,
    created: rule.created,
    updated: rule.updated,
  };
}

export function createBranchProtectionService(context: ReposContext): AsyncServiceOf<typeof BranchProtectionServiceService> {
  const { db } = context;

  const adminRepo = (caller: Actor | undefined, repoId: number, change: boolean): Promise<RepoRow> => loadAdminRepo(context, caller, repoId, change);

  async function named(caller: Actor | undefined, repo: RepoRow, rules: readonly ProtectionRule[]): Promise<BranchProtection[]> {
    const names = await allowListNames(
      context,
      caller,
      repo,
      rules.flatMap((rule) => ALLOW_LIST_KINDS.map((kind) => rule.allowLists[kind])),
    );
    return rules.map((rule) => toBranchProtection(rule, names));
  }

  /** What the viewer is, as the rules see them. */
  async function subjectFor(caller: Actor | undefined, { repo, permission }: RepoForViewer, rules: readonly ProtectionRule[]): Promise<RuleSubject> {
    const userId = caller?.userId ?? 0;
    const listsTeams = userId > 0 && repo.ownerType === OWNER_ORG && rulesListTeams(rules);
    const teams = listsTeams ? await userTeams(context, userId, repo.ownerId) : [];
    return { userId, teamIds: new Set(teams.map((team) => team.teamId)), canWriteCode: unitMode(permission, CODE) >= AccessMode.Write };
  }

  return {
    listBranchProtections: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.viewer, request.repoId, false);
        const rules = inPriorityOrder(await listProtections(db.pool, repo.id));
        return { protections: await named(request.viewer, repo, rules) };
      }),

    getBranchProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.viewer, request.repoId, false);
        const rule = await findProtection(db.pool, repo.id, request.ruleName);
        if (rule === undefined) throw protectionNotFound(request.ruleName);
        const [protection] = await named(request.viewer, repo, [rule]);
        return { protection };
      }),

    createBranchProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        const input = request.protection;
        // The gateway passes Gitea's deprecated `branch_name` here when `rule_name` is empty.
        if (input === undefined || input.ruleName === '') {
          throw CairnError.invalid('both rule_name and branch_name are empty', { reason: 'rule_name_empty' });
        }
        if ((await findProtection(db.pool, repo.id, input.ruleName)) !== undefined) throw protectionExists();
        const lists = await resolveAllowLists(context, request.actor?.userId ?? 0, repo, input, listsInRequest());
        const rule = await db.pool
          .transaction((tx) => insertProtection(tx, repo.id, input.ruleName, settingsForCreate(input), lists))
          .catch((error: unknown) => {
            // Another request created the rule in the meantime.
            throw error instanceof UniqueIntegrityConstraintViolationError ? protectionExists(error) : error;
          });
        const [protection] = await named(request.actor, repo, [rule]);
        return { protection };
      }),

    updateBranchProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        // Gitea answers 404 for an unknown rule before it looks at the names in the request.
        if ((await findProtection(db.pool, repo.id, request.ruleName)) === undefined) throw protectionNotFound(request.ruleName);
        const input = request.protection ?? BranchProtectionMessage.fromPartial({});
        const fields = new Set(request.fields);
        const ruleName = ruleNameAfterEdit(request.ruleName, input, fields);
        if (ruleName !== request.ruleName && (await findProtection(db.pool, repo.id, ruleName)) !== undefined) throw protectionExists();
        const wanted = listsInRequest(fields);
        // Names are resolved before the row is locked; the lists the edit does not carry are taken under the lock.
        const resolved = await resolveAllowLists(context, request.actor?.userId ?? 0, repo, input, wanted);
        const rule = await db.pool
          .transaction(async (tx) => {
            const current = await findProtection(tx, repo.id, request.ruleName, true);
            if (current === undefined) throw protectionNotFound(request.ruleName);
            const settings = settingsAfterEdit(current, input, fields);
            return updateProtection(tx, current.id, ruleName, settings, withLists(current.allowLists, resolved, wanted));
          })
          .catch((error: unknown) => {
            // Another request gave a rule the new name in the meantime.
            throw error instanceof UniqueIntegrityConstraintViolationError ? protectionExists(error) : error;
          });
        const [protection] = await named(request.actor, repo, [rule]);
        return { protection };
      }),

    deleteBranchProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        if (!(await deleteProtection(db.pool, repo.id, request.ruleName))) throw protectionNotFound(request.ruleName);
        return {};
      }),

    setBranchProtectionPriority: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        await setPriorities(db.pool, repo.id, [...new Set(request.ids)]);
        return {};
      }),

    matchBranchProtection: (request) =>
      guard(async () => {
        const found = await loadRepoForViewer(context, request.viewer, request.repoId);
        requireAccess(found.permission, { unit: CODE, mode: 'read' }, found.repo);
        const rules = inPriorityOrder(await listProtections(db.pool, found.repo.id));
        const matched = request.branches.map((branch) => ({ branch, rule: ruleForBranch(rules, branch) }));
        const subject = await subjectFor(
          request.viewer,
          found,
          matched.flatMap(({ rule }) => (rule === undefined ? [] : [rule])),
        );
        return {
          matches: matched.map(({ branch, rule }) =>
            rule === undefined
              ? {
                  branch,
                  protection: undefined,
                  userCanPush: subject.canWriteCode,
                  userCanMerge: subject.canWriteCode,
                  userCanForcePush: subject.canWriteCode,
                  officialReviewer: subject.canWriteCode,
                  approvalsWhitelistTeamIds: [],
                }
              : {
                  branch,
                  protection: toBranchProtection(rule),
                  userCanPush: userCanPush(rule, subject),
                  userCanMerge: userCanMerge(rule, subject),
                  userCanForcePush: userCanForcePush(rule, subject),
                  officialReviewer: userIsOfficialReviewer(rule, subject),
                  approvalsWhitelistTeamIds: rule.enableApprovalsWhitelist ? rule.allowLists.approvals.teamIds : [],
                },
          ),
        };
      }),
  };
}
