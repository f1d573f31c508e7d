/** The `issue_labels` table: which labels an issue carries. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { LABEL_COLUMNS, labelRow, type LabelRow } from './issues';

/** The issue's labels, by name (case-insensitive) as issues list them. */
export async function labelsOfIssue(db: CommonQueryMethods, issueId: number): Promise<LabelRow[]> {
  const rows = await db.any(sql.type(labelRow)`
    SELECT ${LABEL_COLUMNS} FROM issue_labels il JOIN labels l ON l.id = il.label_id
    WHERE il.issue_id = ${issueId} ORDER BY lower(l.name), l.id`);
  return [...rows];
}

/**
 * Locks the issue's row for a labels change, so that two changes of the same issue (each reading the labels, then
 * writing them, e.g. keeping one label per exclusive scope) run one after the other.
 */
export async function lockIssueForLabels(tx: DatabaseTransactionConnection, issueId: number): Promise<void> {
  await tx.query(sql.unsafe`SELECT 1 FROM issues WHERE id = ${issueId} FOR UPDATE`);
}

export async function attachLabels(tx: DatabaseTransactionConnection, issueId: number, labelIds: readonly number[]): Promise<void> {
  if (labelIds.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO issue_labels (issue_id, label_id) SELECT ${issueId}, unnest(${sql.array(labelIds, 'int8')})
    ON CONFLICT DO NOTHING`);
}

/** Takes the labels off the issue; the number of labels it really had among them. */
export async function detachLabels(tx: DatabaseTransactionConnection, issueId: number, labelIds: readonly number[]): Promise<number> {
  if (labelIds.length === 0) return 0;
  const result = await tx.query(sql.type(z.object({ label_id: z.number() }))`
    DELETE FROM issue_labels WHERE issue_id = ${issueId} AND label_id = ANY(${sql.array(labelIds, 'int8')}) RETURNING label_id`);
  return result.rowCount;
}
