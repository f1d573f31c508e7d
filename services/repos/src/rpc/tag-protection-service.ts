/**
 * TagProtectionService: a repository's protected tag rules (Gitea's routers/api/v1/repo/tag.go ListTagProtection …
 * DeleteTagProtection), managed by its admins — changes refused on archived repositories — and CheckTagControl,
 * which answers for anyone who may read the code whether they may create, move or delete some tags.
 */
import { UniqueIntegrityConstraintViolationError } from '@cairn/db';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { TagProtection, TagProtectionServiceService } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { PatternSyntaxError, tagPatternMatcher } from '@cairn/text';
import { allowListNames, namesOf, resolveAllowList, type AllowListNames } from '../protection/allow-list-names';
import { type TagProtectionRule, tagControl, tagSubject } from '../protection/tag-rules';
import type { RepoRow } from '../store/repositories';
import {
  deleteTagProtection,
  findTagProtection,
  findTagProtectionByPattern,
  insertTagProtection,
  listTagProtections,
  updateTagProtection,
} from '../store/tag-protections';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadAdminRepo, loadRepoForViewer, requireAccess } from './repo-access';

function protectionExists(cause?: unknown): CairnError {
  return CairnError.exists('Tag protection already exist', { reason: 'tag_protection_exists', cause });
}

function protectionNotFound(): CairnError {
  return CairnError.notFound('tag protection does not exist', { reason: 'tag_protection_not_found' });
}

/**
 * A pattern as stored: trimmed (Gitea trims it on create), never empty, and compiling. Gitea stores a pattern that
 * does not compile and then fails every tag check of the repository (500s); it is refused here instead.
 */
function checkedPattern(pattern: string): string {
  const trimmed = pattern.trim();
  if (trimmed === '') throw CairnError.invalid('name_pattern are empty', { reason: 'name_pattern_empty' });
  try {
    tagPatternMatcher(trimmed);
  } catch (error) {
    if (error instanceof PatternSyntaxError) throw CairnError.invalid(`invalid name_pattern: ${error.message}`, { reason: 'invalid_name_pattern' });
    throw error;
  }
  return trimmed;
}

export function toTagProtection(rule: TagProtectionRule, names: AllowListNames): TagProtection {
  return {
    id: rule.id,
    namePattern: rule.namePattern,
    whitelistUsernames: namesOf(rule.allowList.userIds, names.users),
    whitelistTeams: namesOf(rule.allowList.teamIds, names.teams),
    created: rule.created,
    updated: rule.updated,
  };
}

export function createTagProtectionService(context: ReposContext): AsyncServiceOf<typeof TagProtectionServiceService> {
  const { db } = context;

  const adminRepo = (caller: Actor | undefined, repoId: number, change: boolean): Promise<RepoRow> => loadAdminRepo(context, caller, repoId, change);

  async function named(caller: Actor | undefined, repo: RepoRow, rules: readonly TagProtectionRule[]): Promise<TagProtection[]> {
    const names = await allowListNames(context, caller, repo, rules.map((rule) => rule.allowList));
    return rules.map((rule) => toTagProtection(rule, names));
  }

  /** A unique-constraint failure is a pattern another request took in the meantime. */
  const exists = (error: unknown): never => {
    throw error instanceof UniqueIntegrityConstraintViolationError ? protectionExists(error) : error;
  };

  return {
    listTagProtections: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.viewer, request.repoId, false);
        return { protections: await named(request.viewer, repo, await listTagProtections(db.pool, repo.id)) };
      }),

    getTagProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.viewer, request.repoId, false);
        const rule = await findTagProtection(db.pool, repo.id, request.id);
        if (rule === undefined) throw protectionNotFound();
        const [protection] = await named(request.viewer, repo, [rule]);
        return { protection };
      }),

    // Gitea's order: an empty pattern, both lists empty, an existing pattern, then the names.
    createTagProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        const input = request.protection;
        if (input === undefined || input.namePattern.trim() === '') throw CairnError.invalid('name_pattern are empty', { reason: 'name_pattern_empty' });
        if (input.whitelistUsernames.length === 0 && input.whitelistTeams.length === 0) {
          throw CairnError.invalid('both whitelist_usernames and whitelist_teams are empty', { reason: 'allow_lists_empty' });
        }
        const namePattern = input.namePattern.trim();
        if ((await findTagProtectionByPattern(db.pool, repo.id, namePattern)) !== undefined) throw protectionExists();
        checkedPattern(namePattern);
        const callerId = request.actor?.userId ?? 0;
        const { userIds = [], teamIds = [] } = await resolveAllowList(context, callerId, repo, { users: input.whitelistUsernames, teams: input.whitelistTeams });
        const rule = await insertTagProtection(db.pool, { repoId: repo.id, namePattern, allowList: { userIds, teamIds } }).catch(exists);
        const [protection] = await named(request.actor, repo, [rule]);
        return { protection };
      }),

    // Gitea's EditTagProtection: 404 first, then the fields the edit gives (teams before users).
    updateTagProtection: (request) =>
      guard(async () => {
        const repo = await adminRepo(request.actor, request.repoId, true);
        const current = await findTagProtection(db.pool, repo.id, request.id);
        if (current === undefined) throw protectionNotFound();
        const fields = new Set(request.fields);
        const input = request.protection;
        const namePattern = fields.has('name_pattern') ? checkedPattern(input?.namePattern ?? '') : current.namePattern;
        if (namePattern !== current.namePattern && (await findTagProtectionByPattern(db.pool, repo.id, namePattern)) !== undefined) throw protectionExists();
        const resolved = await resolveAllowList(context, request.actor?.userId ?? 0, repo, {
          teams: fields.has('whitelist_teams') ? (input?.whitelistTeams ?? []) : undefined,
          users: fields.has('whitelist_usernames') ? (input?.whitelistUsernames ?? []) : undefined,
        });
        const allowList = { userIds: resolved.userIds ?? current.allowList.userIds, teamIds: resolved.teamIds ?? current.allowList.teamIds };
        const rule = await updateTagProtection(db.pool, { id: current.id, repoId: repo.id, namePattern, allowList }).catch(exists);
        if (rule === undefined) throw protectionNotFound();
        const [protection] = await named(request.actor, repo, [rule]);
        return { protection };
      }),

    deleteTagProtection: (request) =>
      guard(async () => {
        // Gitea's route deletes a rule of an archived repository too (no mustNotBeArchived there).
        const repo = await adminRepo(request.actor, request.repoId, false);
        if (!(await deleteTagProtection(db.pool, repo.id, request.id))) throw protectionNotFound();
        return {};
      }),

    checkTagControl: (request) =>
      guard(async () => {
        const { repo, permission } = await loadRepoForViewer(context, request.actor, request.repoId);
        requireAccess(permission, { unit: 'repo.code', mode: 'read' }, repo);
        const rules = await listTagProtections(db.pool, repo.id);
        const subject = await tagSubject(context, repo, request.actor?.userId ?? 0, rules);
        return { tags: request.tagNames.map((tagName) => ({ tagName, ...tagControl(rules, tagName, subject) })) };
      }),
  };
}
