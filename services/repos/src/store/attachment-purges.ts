/**
 * The `attachment_purges` table (migration 0005): attachments' bytes to remove from the object store, recorded by
 * the `attachments` trigger in the transaction that deleted their rows, so they exist only once it committed — and
 * the reservations of uploads in progress, due a day later unless the upload is recorded first.
 */
import { type CommonQueryMethods, type DatabaseTransactionConnection, sql, z } from '@cairn/db';

const uuidRow = z.object({ uuid: z.string() });

/**
 * Locks the removal due longest for `tx`. Rows another transaction holds are skipped, so purgers on several
 * replicas never remove the same bytes at once.
 */
export async function lockAttachmentPurge(tx: DatabaseTransactionConnection): Promise<string | undefined> {
  const row = await tx.maybeOne(sql.type(uuidRow)`
    SELECT uuid FROM attachment_purges WHERE not_before <= now() ORDER BY not_before LIMIT 1 FOR UPDATE SKIP LOCKED
  `);
  return row?.uuid;
}

export async function finishAttachmentPurge(tx: DatabaseTransactionConnection, uuid: string): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM attachment_purges WHERE uuid = ${uuid}`);
}

/** Counts a failed removal and puts the next try off: 2, 4, 8 … seconds, at most `maxDelayMs`. Answers the attempts. */
export async function postponeAttachmentPurge(tx: DatabaseTransactionConnection, uuid: string, maxDelayMs: number): Promise<number> {
  return tx.oneFirst(sql.type(z.object({ attempts: z.number() }))`
    UPDATE attachment_purges
    SET attempts = attempts + 1,
        not_before = now() + least(power(2, least(attempts + 1, 30)) * 1000, ${maxDelayMs}) * interval '1 millisecond'
    WHERE uuid = ${uuid}
    RETURNING attempts
  `);
}

/** How long an upload may take between its reservation and its record before its bytes count as abandoned. */
export const UPLOAD_RESERVATION_MS = 24 * 60 * 60 * 1000;

/** Reserves `uuid` for an upload: its bytes are removed after `windowMs` unless claimed. Reserving twice is a no-op. */
export async function reserveAttachmentUpload(db: CommonQueryMethods, uuid: string, windowMs = UPLOAD_RESERVATION_MS): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO attachment_purges (uuid, not_before) VALUES (${uuid}, now() + ${windowMs} * interval '1 millisecond')
    ON CONFLICT (uuid) DO NOTHING
  `);
}

/** Claims the reservation of an upload being recorded; false when there is none (never made, or purged). */
export async function claimAttachmentUpload(tx: DatabaseTransactionConnection, uuid: string): Promise<boolean> {
  const claimed = await tx.maybeOne(sql.type(uuidRow)`DELETE FROM attachment_purges WHERE uuid = ${uuid} RETURNING uuid`);
  return claimed !== null;
}
