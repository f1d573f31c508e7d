/**
 * What a rule lets one user do (Gitea's `CanUserPush`, `CanUserForcePush`, `IsUserMergeWhitelisted`). Being a
 * repository admin exempts no one: with an allow list on, only the users and teams on it may push, force-push
 * or merge. Without one, pushing and merging are for whoever may write the code unit.
 */
import type { AllowList, ProtectionRule } from './rule';

/** The user a rule is evaluated for. */
export interface RuleSubject {
  userId: number;
  /** The user's teams in the repository's organization (none for a user-owned repository). */
  teamIds: ReadonlySet<number>;
  /** The user may write the repository's code unit. */
  canWriteCode: boolean;
}

export type EvaluatedRule = Pick<
  ProtectionRule,
  | 'ruleName'
  | 'allowLists'
  | 'enablePush'
  | 'enablePushWhitelist'
  | 'enableForcePush'
  | 'enableForcePushAllowlist'
  | 'enableMergeWhitelist'
  | 'requireSignedCommits'
  | 'protectedFilePatterns'
  | 'unprotectedFilePatterns'
>;

/**
 * Gitea keeps only users who may write the code on a list when it is saved; asking at evaluation time gives the
 * same answer and stays right when a listed user's access changes later. A listed team counts as it is.
 */
function isListed(list: AllowList, subject: RuleSubject): boolean {
  if (subject.userId <= 0) return false;
  return (subject.canWriteCode && list.userIds.includes(subject.userId)) || list.teamIds.some((teamId) => subject.teamIds.has(teamId));
}

export function userCanPush(rule: EvaluatedRule, subject: RuleSubject): boolean {
  if (!rule.enablePush) return false;
  return rule.enablePushWhitelist ? isListed(rule.allowLists.push, subject) : subject.canWriteCode;
}

/** Force-pushing extends pushing: the user must be able to push as well. */
export function userCanForcePush(rule: EvaluatedRule, subject: RuleSubject): boolean {
  if (!rule.enableForcePush || !userCanPush(rule, subject)) return false;
  return !rule.enableForcePushAllowlist || isListed(rule.allowLists.forcePush, subject);
}

export function userCanMerge(rule: EvaluatedRule, subject: RuleSubject): boolean {
  return rule.enableMergeWhitelist ? isListed(rule.allowLists.merge, subject) : subject.canWriteCode;
}

/**
 * Gitea's IsUserOfficialReviewer: with the approvals allow list on, the users and teams on it (Gitea keeps only
 * users who may read pull requests on it, which a reviewer does); without it, whoever may write the code.
 */
export function userIsOfficialReviewer(rule: EvaluatedRule & Pick<ProtectionRule, 'enableApprovalsWhitelist'>, subject: RuleSubject): boolean {
  if (!rule.enableApprovalsWhitelist) return subject.canWriteCode;
  if (subject.userId <= 0) return false;
  const list = rule.allowLists.approvals;
  return list.userIds.includes(subject.userId) || list.teamIds.some((teamId) => subject.teamIds.has(teamId));
}

/** Whether evaluating these rules needs the user's teams at all. */
export function rulesListTeams(rules: readonly EvaluatedRule[]): boolean {
  return rules.some(
    ({ allowLists }) =>
      allowLists.push.teamIds.length + allowLists.forcePush.teamIds.length + allowLists.merge.teamIds.length + allowLists.approvals.teamIds.length > 0,
  );
}
