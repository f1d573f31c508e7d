/** The `labels` table: repository labels and organization labels. */
import { sql, type CommonQueryMethods } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import { LABEL_COLUMNS, labelRow, type LabelRow } from './issues';

/**
 * The labels an issue of repository `repoId` (owned by `ownerId`) may carry, named by id or by name: labels of the
 * repository and of its owner (organization labels). Any id or name that is not one of them is INVALID_ARGUMENT,
 * so a request with an unknown label changes nothing. Names match case-insensitively, every label of that name.
 */
export async function resolveIssueLabels(
  db: CommonQueryMethods,
  repo: { repoId: number; ownerId: number },
  ids: readonly number[],
  names: readonly string[],
): Promise<LabelRow[]> {
  const wantedIds = [...new Set(ids)];
  const wantedNames = [...new Set(names.map((name) => name.toLowerCase()))];
  if (wantedIds.length === 0 && wantedNames.length === 0) return [];
  if (wantedIds.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw CairnError.invalid('label does not exist', { reason: 'label_not_found' });
  const rows = await db.any(sql.type(labelRow)`
    SELECT ${LABEL_COLUMNS} FROM labels l
    WHERE (l.repo_id = ${repo.repoId} OR (l.org_id = ${repo.ownerId} AND l.org_id > 0))
      AND (l.id = ANY(${sql.array(wantedIds, 'int8')}) OR lower(l.name) = ANY(${sql.array(wantedNames, 'text')}))
    ORDER BY lower(l.name), l.id`);
  const foundIds = new Set(rows.map((row) => row.id));
  const foundNames = new Set(rows.map((row) => row.name.toLowerCase()));
  const missingId = wantedIds.find((id) => !foundIds.has(id));
  const missingName = wantedNames.find((name) => !foundNames.has(name));
  if (missingId !== undefined) throw CairnError.invalid(`label does not exist [id: ${missingId}]`, { reason: 'label_not_found' });
  if (missingName !== undefined) throw CairnError.invalid(`label does not exist [name: ${missingName}]`, { reason: 'label_not_found' });
  return [...rows];
}
