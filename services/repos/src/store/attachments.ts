/**
 * The `attachments` table (migrations 0005, 0007): attachments' metadata, one parent each — a release, an issue, or
 * a comment on an issue. Deleting a row records its bytes for the purger (the table's trigger).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { AttachmentOwner } from '../domain/attachments';

const attachmentRow = z.object({
  id: z.number(),
  uuid: z.string(),
  repo_id: z.number(),
  release_id: z.number().nullable(),
  issue_id: z.number().nullable(),
  comment_id: z.number().nullable(),
  is_pull: z.boolean(),
  uploader_id: z.number(),
  name: z.string(),
  size: z.number(),
  download_count: z.number(),
  created: z.date(),
});
type AttachmentColumns = z.infer<typeof attachmentRow>;

export interface StoredAttachment {
  id: number;
  uuid: string;
  repoId: number;
  owner: AttachmentOwner;
  uploaderId: number;
  name: string;
  size: number;
  downloadCount: number;
  created: Date;
}

function ownerOf(row: AttachmentColumns): AttachmentOwner {
  if (row.release_id !== null) return { kind: 'release', releaseId: row.release_id };
  const issueId = row.issue_id ?? 0;
  if (row.comment_id !== null) return { kind: 'comment', issueId, commentId: row.comment_id, isPull: row.is_pull };
  return { kind: 'issue', issueId, isPull: row.is_pull };
}

function toAttachment(row: AttachmentColumns): StoredAttachment {
  return {
    id: row.id,
    uuid: row.uuid,
    repoId: row.repo_id,
    owner: ownerOf(row),
    uploaderId: row.uploader_id,
    name: row.name,
    size: row.size,
    downloadCount: row.download_count,
    created: row.created,
  };
}

const COLUMNS = sql.join(
  Object.keys(attachmentRow.shape).map((name) => sql.identifier([name])),
  sql.fragment`, `,
);

/** The rows of one parent: a release's, an issue's own (not its comments'), or a comment's. */
function parentCondition(repoId: number, owner: AttachmentOwner) {
  switch (owner.kind) {
    case 'release':
      return sql.fragment`repo_id = ${repoId} AND release_id = ${owner.releaseId}`;
    case 'issue':
      return sql.fragment`repo_id = ${repoId} AND issue_id = ${owner.issueId} AND comment_id IS NULL`;
    case 'comment':
      return sql.fragment`repo_id = ${repoId} AND issue_id = ${owner.issueId} AND comment_id = ${owner.commentId}`;
  }
}

export async function insertAttachment(
  db: CommonQueryMethods,
  attachment: { uuid: string; repoId: number; owner: AttachmentOwner; uploaderId: number; name: string; size: number },
): Promise<StoredAttachment> {
  const { owner } = attachment;
  const releaseId = owner.kind === 'release' ? owner.releaseId : null;
  const issueId = owner.kind === 'release' ? null : owner.issueId;
  const commentId = owner.kind === 'comment' ? owner.commentId : null;
  const isPull = owner.kind === 'release' ? false : owner.isPull;
  const row = await db.one(sql.type(attachmentRow)`
    INSERT INTO attachments (uuid, repo_id, release_id, issue_id, comment_id, is_pull, uploader_id, name, size)
    VALUES (${attachment.uuid}, ${attachment.repoId}, ${releaseId}, ${issueId}, ${commentId}, ${isPull}, ${attachment.uploaderId},
      ${attachment.name}, ${attachment.size})
    RETURNING ${COLUMNS}
  `);
  return toAttachment(row);
}

/** A parent's attachments, oldest first (Gitea orders by id). */
export async function listAttachments(db: CommonQueryMethods, repoId: number, owner: AttachmentOwner): Promise<StoredAttachment[]> {
  const rows = await db.any(sql.type(attachmentRow)`SELECT ${COLUMNS} FROM attachments WHERE ${parentCondition(repoId, owner)} ORDER BY id`);
  return rows.map(toAttachment);
}

/**
 * The attachments of several issues and comments at once (a page of them), oldest first: issues' own attachments
 * for `issueIds`, comments' for `commentIds` (the issues service's ids, unique across repositories).
 */
export async function listAttachmentsOf(db: CommonQueryMethods, parents: { issueIds: readonly number[]; commentIds: readonly number[] }): Promise<StoredAttachment[]> {
  if (parents.issueIds.length === 0 && parents.commentIds.length === 0) return [];
  const rows = await db.any(sql.type(attachmentRow)`
    SELECT ${COLUMNS} FROM attachments
    WHERE (comment_id IS NULL AND issue_id = ANY(${sql.array([...parents.issueIds], 'int8')}))
       OR comment_id = ANY(${sql.array([...parents.commentIds], 'int8')})
    ORDER BY id
  `);
  return rows.map(toAttachment);
}

/** One attachment of the parent (locked for `tx` when it is a transaction's). */
export async function findAttachment(db: CommonQueryMethods, repoId: number, owner: AttachmentOwner, id: number): Promise<StoredAttachment | undefined> {
  const row = await db.maybeOne(sql.type(attachmentRow)`SELECT ${COLUMNS} FROM attachments WHERE ${parentCondition(repoId, owner)} AND id = ${id}`);
  return row === null ? undefined : toAttachment(row);
}

export async function findAttachmentByUuid(db: CommonQueryMethods, uuid: string): Promise<StoredAttachment | undefined> {
  const row = await db.maybeOne(sql.type(attachmentRow)`SELECT ${COLUMNS} FROM attachments WHERE uuid = ${uuid}`);
  return row === null ? undefined : toAttachment(row);
}

export async function renameAttachment(db: CommonQueryMethods, id: number, name: string): Promise<StoredAttachment> {
  const row = await db.one(sql.type(attachmentRow)`UPDATE attachments SET name = ${name} WHERE id = ${id} RETURNING ${COLUMNS}`);
  return toAttachment(row);
}

/** Counts a download (Gitea's IncreaseDownloadCount) and answers the attachment as it is then. */
export async function countDownload(db: CommonQueryMethods, id: number): Promise<StoredAttachment> {
  const row = await db.one(sql.type(attachmentRow)`UPDATE attachments SET download_count = download_count + 1 WHERE id = ${id} RETURNING ${COLUMNS}`);
  return toAttachment(row);
}

/** Deletes the row; its trigger records the bytes for the purger in `tx`. */
export async function deleteAttachment(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM attachments WHERE id = ${id}`);
}

/** Deletes an issue's attachments, its comments' included (a deleted issue's, in its repository). */
export async function deleteIssueAttachments(tx: DatabaseTransactionConnection, repoId: number, issueId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM attachments WHERE repo_id = ${repoId} AND issue_id = ${issueId}`);
}

/** Deletes a comment's attachments (a deleted comment's, of its issue). */
export async function deleteCommentAttachments(tx: DatabaseTransactionConnection, issueId: number, commentId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM attachments WHERE issue_id = ${issueId} AND comment_id = ${commentId}`);
}

const releaseRow = z.object({ is_draft: z.boolean() });

/** Whether the release exists in the repository and is a draft (undefined: no such release). */
export async function releaseDraftState(db: CommonQueryMethods, repoId: number, releaseId: number): Promise<{ isDraft: boolean } | undefined> {
  const row = await db.maybeOne(sql.type(releaseRow)`SELECT is_draft FROM releases WHERE id = ${releaseId} AND repo_id = ${repoId}`);
  return row === null ? undefined : { isDraft: row.is_draft };
}
