/** The `tag_protections` table: a repository's protected tag rules with their allow lists of user and team ids. */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { TagProtectionRule } from '../protection/tag-rules';

const ruleRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  name_pattern: z.string(),
  allowlist_user_ids: z.array(z.number()),
  allowlist_team_ids: z.array(z.number()),
  created: z.date(),
  updated: z.date(),
});
type RuleColumns = z.infer<typeof ruleRow>;

const COLUMNS = sql.fragment`id, repo_id, name_pattern, allowlist_user_ids, allowlist_team_ids, created, updated`;

function toRule(row: RuleColumns): TagProtectionRule {
  return {
    id: row.id,
    repoId: row.repo_id,
    namePattern: row.name_pattern,
    allowList: { userIds: row.allowlist_user_ids, teamIds: row.allowlist_team_ids },
    created: row.created,
    updated: row.updated,
  };
}

const ids = (values: readonly number[]) => sql.array(values, 'int8');

/** A repository's rules, oldest first. */
export async function listTagProtections(db: CommonQueryMethods, repoId: number): Promise<TagProtectionRule[]> {
  const rows = await db.any(sql.type(ruleRow)`SELECT ${COLUMNS} FROM tag_protections WHERE repo_id = ${repoId} ORDER BY id`);
  return rows.map(toRule);
}

export async function findTagProtection(db: CommonQueryMethods, repoId: number, id: number): Promise<TagProtectionRule | undefined> {
  const row = await db.maybeOne(sql.type(ruleRow)`SELECT ${COLUMNS} FROM tag_protections WHERE repo_id = ${repoId} AND id = ${id}`);
  return row === null ? undefined : toRule(row);
}

export async function findTagProtectionByPattern(db: CommonQueryMethods, repoId: number, namePattern: string): Promise<TagProtectionRule | undefined> {
  const row = await db.maybeOne(sql.type(ruleRow)`SELECT ${COLUMNS} FROM tag_protections WHERE repo_id = ${repoId} AND name_pattern = ${namePattern}`);
  return row === null ? undefined : toRule(row);
}

/** Inserts a rule; a pattern the repository has fails the table's unique constraint. */
export async function insertTagProtection(db: CommonQueryMethods, rule: Pick<TagProtectionRule, 'repoId' | 'namePattern' | 'allowList'>): Promise<TagProtectionRule> {
  const row = await db.one(sql.type(ruleRow)`
    INSERT INTO tag_protections (repo_id, name_pattern, allowlist_user_ids, allowlist_team_ids)
    VALUES (${rule.repoId}, ${rule.namePattern}, ${ids(rule.allowList.userIds)}, ${ids(rule.allowList.teamIds)})
    RETURNING ${COLUMNS}
  `);
  return toRule(row);
}

/** Rewrites rule `id` of the repository; undefined when it has none. */
export async function updateTagProtection(
  db: CommonQueryMethods,
  rule: Pick<TagProtectionRule, 'id' | 'repoId' | 'namePattern' | 'allowList'>,
): Promise<TagProtectionRule | undefined> {
  const row = await db.maybeOne(sql.type(ruleRow)`
    UPDATE tag_protections
    SET name_pattern = ${rule.namePattern}, allowlist_user_ids = ${ids(rule.allowList.userIds)},
        allowlist_team_ids = ${ids(rule.allowList.teamIds)}, updated = now()
    WHERE repo_id = ${rule.repoId} AND id = ${rule.id}
    RETURNING ${COLUMNS}
  `);
  return row === null ? undefined : toRule(row);
}

/** Deletes rule `id` of the repository; false when it has none. */
export async function deleteTagProtection(db: CommonQueryMethods, repoId: number, id: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM tag_protections WHERE repo_id = ${repoId} AND id = ${id}`);
  return result.rowCount > 0;
}
