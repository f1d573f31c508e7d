/**
 * Protected tags (Gitea's models/git/protected_tag.go IsUserAllowedToControlTag): a tag that matches no rule is
 * anyone's (who may write the code) to create, move or delete; one that matches rules only for a user whom one of
 * those rules lists, by id or through a team of the owning organization. Admins are not exempt. The same answer
 * serves the tag API, releases (mayControlTag), CheckTagControl and pushes (loadPushTagRules, enforced by
 * git-storage with the same matcher).
 */
import type { PushTagRule } from '@cairn/proto/cairn/repos/v1/repos_service';
import { tagPatternMatcher } from '@cairn/text';
import { OWNER_ORG } from '../domain/access';
import type { ReposContext } from '../rpc/context';
import { userTeams } from '../rpc/viewer-teams';
import type { RepoRow } from '../store/repositories';
import { listTagProtections } from '../store/tag-protections';
import type { AllowList } from './rule';

export interface TagProtectionRule {
  id: number;
  repoId: number;
  namePattern: string;
  allowList: AllowList;
  created: Date;
  updated: Date;
}

/** The user a tag rule is evaluated for. */
export interface TagSubject {
  userId: number;
  /** The user's teams in the repository's organization (none for a user-owned repository). */
  teamIds: ReadonlySet<number>;
}

/** Gitea's IsUserAllowedModifyTag: listed by id, or a member of a listed team. */
export function ruleAllows(rule: Pick<TagProtectionRule, 'allowList'>, subject: TagSubject): boolean {
  if (subject.userId <= 0) return false;
  return rule.allowList.userIds.includes(subject.userId) || rule.allowList.teamIds.some((teamId) => subject.teamIds.has(teamId));
}

export interface TagControl {
  /** The tag matches at least one rule. */
  protected: boolean;
  /** The subject may create, move or delete it. */
  allowed: boolean;
}

/** Whether `subject` may control the tag `tagName` under `rules` (stored patterns always compile). */
export function tagControl(rules: readonly Pick<TagProtectionRule, 'namePattern' | 'allowList'>[], tagName: string, subject: TagSubject): TagControl {
  const matching = rules.filter((rule) => tagPatternMatcher(rule.namePattern)(tagName));
  return { protected: matching.length > 0, allowed: matching.length === 0 || matching.some((rule) => ruleAllows(rule, subject)) };
}

type RepoOwner = Pick<RepoRow, 'id' | 'ownerId' | 'ownerType'>;

/** The subject for `userId`; their teams are asked of accounts only when a rule lists teams. */
export async function tagSubject(context: ReposContext, repo: RepoOwner, userId: number, rules: readonly TagProtectionRule[]): Promise<TagSubject> {
  const listsTeams = userId > 0 && repo.ownerType === OWNER_ORG && rules.some((rule) => rule.allowList.teamIds.length > 0);
  const teams = listsTeams ? await userTeams(context, userId, repo.ownerId) : [];
  return { userId, teamIds: new Set(teams.map((team) => team.teamId)) };
}

/** Whether `actorId` may create, move or delete the tag `tagName` in `repo`. */
export async function mayControlTag(context: ReposContext, repo: RepoOwner, actorId: number, tagName: string): Promise<boolean> {
  const rules = await listTagProtections(context.db.pool, repo.id);
  if (rules.length === 0) return true;
  return tagControl(rules, tagName, await tagSubject(context, repo, actorId, rules)).allowed;
}

/** The repository's tag rules as they apply to `pusherId`, for GetPushPolicy. */
export async function loadPushTagRules(context: ReposContext, repo: RepoOwner, pusherId: number): Promise<PushTagRule[]> {
  const rules = await listTagProtections(context.db.pool, repo.id);
  if (rules.length === 0) return [];
  const subject = await tagSubject(context, repo, pusherId, rules);
  return rules.map((rule) => ({ namePattern: rule.namePattern, allowed: ruleAllows(rule, subject) }));
}
