/** The `labels` table: repository labels and organization labels. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import type { PageWindow } from '../domain/paging';
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

/** Whose labels: a repository's or an organization's. */
export type LabelOwnerRef = { repoId: number } | { orgId: number };

function ownedBy(owner: LabelOwnerRef): FragmentSqlToken {
  return 'repoId' in owner ? sql.fragment`l.repo_id = ${owner.repoId} AND l.repo_id > 0` : sql.fragment`l.org_id = ${owner.orgId} AND l.org_id > 0`;
}

/** A page of the owner's labels by name (case-insensitive), and how many it has. */
export async function listLabels(db: CommonQueryMethods, owner: LabelOwnerRef, window: PageWindow | undefined): Promise<{ rows: LabelRow[]; total: number }> {
  const page = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(labelRow)`SELECT ${LABEL_COLUMNS} FROM labels l WHERE ${ownedBy(owner)} ORDER BY lower(l.name), l.id ${page}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM labels l WHERE ${ownedBy(owner)}`),
  ]);
  return { rows: [...rows], total };
}

/** The owner's label by id, or null (a label of anyone else is not there). */
export async function findLabel(db: CommonQueryMethods, owner: LabelOwnerRef, id: number): Promise<LabelRow | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  return db.maybeOne(sql.type(labelRow)`SELECT ${LABEL_COLUMNS} FROM labels l WHERE ${ownedBy(owner)} AND l.id = ${id}`);
}

/** The owner's (first) label of exactly this name, or null. */
export async function findLabelByName(db: CommonQueryMethods, owner: LabelOwnerRef, name: string): Promise<LabelRow | null> {
  return db.maybeOne(sql.type(labelRow)`SELECT ${LABEL_COLUMNS} FROM labels l WHERE ${ownedBy(owner)} AND l.name = ${name} ORDER BY l.id LIMIT 1`);
}

export interface LabelValues {
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  archived: boolean;
}

export async function insertLabel(tx: DatabaseTransactionConnection, owner: LabelOwnerRef, values: LabelValues): Promise<LabelRow> {
  const repoId = 'repoId' in owner ? owner.repoId : 0;
  const orgId = 'orgId' in owner ? owner.orgId : 0;
  return tx.one(sql.type(labelRow)`
    INSERT INTO labels AS l (repo_id, org_id, name, color, description, exclusive, archived_at)
    VALUES (${repoId}, ${orgId}, ${values.name}, ${values.color}, ${values.description}, ${values.exclusive},
            ${values.archived ? sql.fragment`now()` : null})
    RETURNING ${LABEL_COLUMNS}`);
}

/** Stores the label's new values; an archived label keeps the date it was first archived (Gitea's SetArchived). */
export async function updateLabel(tx: DatabaseTransactionConnection, id: number, values: LabelValues): Promise<LabelRow> {
  return tx.one(sql.type(labelRow)`
    UPDATE labels AS l SET name = ${values.name}, color = ${values.color}, description = ${values.description},
      exclusive = ${values.exclusive}, archived_at = ${values.archived ? sql.fragment`coalesce(l.archived_at, now())` : null}, updated = now()
    WHERE l.id = ${id}
    RETURNING ${LABEL_COLUMNS}`);
}

/** Deletes the label (its issues lose it: issue_labels cascades). */
export async function deleteLabel(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM labels WHERE id = ${id}`);
}
