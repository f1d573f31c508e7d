/**
 * The branch protection rules as they apply to one pusher, for RepoService.GetPushPolicy (git-storage enforces
 * them in ReceivePack, matching each pushed branch against the rule names in this order).
 */
import type { PushRule } from '@cairn/proto/cairn/repos/v1/repos_service';
import { OWNER_ORG, type Viewer } from '../domain/access';
import type { ReposContext } from '../rpc/context';
import { userTeams } from '../rpc/viewer-teams';
import { listProtections } from '../store/branch-protections';
import type { RepoRow } from '../store/repositories';
import { rulesListTeams, userCanForcePush, userCanPush, type EvaluatedRule, type RuleSubject } from './allow-lists';
import { inPriorityOrder } from './rule';

/** One rule for one pusher. A protected branch is never deleted by a push (Gitea's pre-receive refuses it). */
export function pushRuleFor(rule: EvaluatedRule, pusher: RuleSubject): PushRule {
  return {
    ruleName: rule.ruleName,
    canPush: userCanPush(rule, pusher),
    canForcePush: userCanForcePush(rule, pusher),
    canDelete: false,
    requireSignedCommits: rule.requireSignedCommits,
    protectedFilePatterns: rule.protectedFilePatterns,
    unprotectedFilePatterns: rule.unprotectedFilePatterns,
  };
}

/**
 * The repository's rules for `pusher`, in priority order. The caller (GetPushPolicy) has established that the
 * pusher may write the code unit; their teams are asked of accounts only when a rule lists teams.
 */
export async function loadPushRules(context: ReposContext, repo: Pick<RepoRow, 'id' | 'ownerId' | 'ownerType'>, pusher: Pick<Viewer, 'id'>): Promise<PushRule[]> {
  const rules = inPriorityOrder(await listProtections(context.db.pool, repo.id));
  if (rules.length === 0) return [];
  const teams = repo.ownerType === OWNER_ORG && rulesListTeams(rules) ? await userTeams(context, pusher.id, repo.ownerId) : [];
  const subject: RuleSubject = { userId: pusher.id, teamIds: new Set(teams.map((team) => team.teamId)), canWriteCode: true };
  return rules.map((rule) => pushRuleFor(rule, subject));
}
