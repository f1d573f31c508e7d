/** The `repo_transfers` table: transfers waiting for their recipient (the row's `pending_transfer` reads them). */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';

export async function insertTransfer(
  tx: DatabaseTransactionConnection,
  transfer: { repoId: number; doerId: number; recipientId: number; teamIds: readonly number[] },
): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO repo_transfers (repo_id, doer_id, recipient_id, team_ids)
    VALUES (${transfer.repoId}, ${transfer.doerId}, ${transfer.recipientId}, ${sql.array([...transfer.teamIds], 'int8')})
  `);
}

export async function deleteTransfer(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM repo_transfers WHERE repo_id = ${repoId}`);
}

/** Drops the transfers offered to a deleted account. */
export async function deleteTransfersTo(tx: DatabaseTransactionConnection, recipientId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM repo_transfers WHERE recipient_id = ${recipientId}`);
}
