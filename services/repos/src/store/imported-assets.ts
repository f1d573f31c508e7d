/**
 * Release assets of a migrated repository (ImportService.ImportReleaseAsset): the imported releases' assets as a
 * resumed import needs to see them, and the asset rows with the source's download count and time (Gitea's
 * gitea_uploader.go CreateReleases keeps both). Rows live in `attachments` (migration 0005) like uploaded ones.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { ReleaseAttachment } from './releases';

const releaseAssetsRow = z.object({ id: z.number(), tag_name: z.string(), names: z.array(z.string()) });

export interface ReleaseAssetNames {
  releaseId: number;
  tagName: string;
  /** The release's assets' names, oldest first. */
  names: string[];
}

/** The releases of `tagNames` (compared without case, as releases' tags are) with their assets' names. */
export async function releaseAssetNames(db: CommonQueryMethods, repoId: number, tagNames: readonly string[]): Promise<ReleaseAssetNames[]> {
  if (tagNames.length === 0) return [];
  const rows = await db.any(sql.type(releaseAssetsRow)`
    SELECT r.id, r.tag_name,
      coalesce((SELECT array_agg(a.name ORDER BY a.id) FROM attachments a WHERE a.release_id = r.id), '{}') AS names
    FROM releases r
    WHERE r.repo_id = ${repoId} AND lower(r.tag_name) = ANY(${sql.array(
      tagNames.map((tag) => tag.toLowerCase()),
      'text',
    )})
    ORDER BY r.id
  `);
  return rows.map((row) => ({ releaseId: row.id, tagName: row.tag_name, names: row.names }));
}

/** The release of `tagName`, locked for `tx` so concurrent imports of its assets add each one once. */
export async function lockReleaseOfTag(tx: DatabaseTransactionConnection, repoId: number, tagName: string): Promise<number | undefined> {
  const id = await tx.maybeOneFirst(sql.type(z.object({ id: z.number() }))`
    SELECT id FROM releases WHERE repo_id = ${repoId} AND lower(tag_name) = ${tagName.toLowerCase()} FOR UPDATE
  `);
  return id ?? undefined;
}

export async function findReleaseOfTag(db: CommonQueryMethods, repoId: number, tagName: string): Promise<number | undefined> {
  const id = await db.maybeOneFirst(sql.type(z.object({ id: z.number() }))`
    SELECT id FROM releases WHERE repo_id = ${repoId} AND lower(tag_name) = ${tagName.toLowerCase()}
  `);
  return id ?? undefined;
}

const assetRow = z.object({ id: z.number(), uuid: z.string(), size: z.number() });
export type ImportedAssetRow = z.infer<typeof assetRow>;

/** The `occurrence`-th (1-based, oldest first) asset named `name` of the release, if it has that many. */
export async function assetOccurrence(db: CommonQueryMethods, releaseId: number, name: string, occurrence: number): Promise<ImportedAssetRow | undefined> {
  const row = await db.maybeOne(sql.type(assetRow)`
    SELECT id, uuid::text AS uuid, size FROM attachments WHERE release_id = ${releaseId} AND name = ${name}
    ORDER BY id OFFSET ${occurrence - 1} LIMIT 1
  `);
  return row ?? undefined;
}

/** An imported asset is a release attachment before it has an id. */
export type ImportedAsset = Omit<ReleaseAttachment, 'id'>;

export async function insertImportedAsset(tx: DatabaseTransactionConnection, asset: ImportedAsset): Promise<ImportedAssetRow> {
  return tx.one(sql.type(assetRow)`
    INSERT INTO attachments (uuid, repo_id, release_id, uploader_id, name, size, download_count, created)
    VALUES (${asset.uuid}, ${asset.repoId}, ${asset.releaseId}, ${asset.uploaderId}, ${asset.name}, ${asset.size},
      ${asset.downloadCount}, ${sql.timestamp(asset.created)})
    RETURNING id, uuid::text AS uuid, size
  `);
}

/** Makes an upload's reservation due now (bytes stored but not recorded): the purger removes them at once. */
export async function abandonAttachmentUpload(db: CommonQueryMethods, uuid: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE attachment_purges SET not_before = now() WHERE uuid = ${uuid}`);
}
