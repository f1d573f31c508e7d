/**
 * ImportService.ImportReleaseAsset: one migrated release asset, bytes and record (Gitea's services/migrations/
 * gitea_uploader.go CreateReleases saves each asset to the attachments storage with the source's name, download
 * count and time). The bytes go to the object store under a uuid reserved first, as the gateway's uploads do, so a
 * call that breaks off (or a repos that dies) leaves only bytes the purger removes; an asset the release already has
 * (a resumed import sending it again) is answered as it is and the new bytes are purged at once.
 */
import { randomUUID } from 'node:crypto';
import type { ImportReleaseAssetRequest, ImportReleaseAssetResponse, ImportedReleaseAsset } from '@cairn/proto/cairn/repos/v1/import_service';
import { CairnError } from '@cairn/rpc';
import { ObjectTooLargeError, attachmentKey } from '@cairn/storage';
import { checkAttachmentName } from '../domain/attachments';
import { purgeAttachmentsNow } from '../maintenance/purge-attachments';
import { claimAttachmentUpload, reserveAttachmentUpload } from '../store/attachment-purges';
import { abandonAttachmentUpload, assetOccurrence, findReleaseOfTag, insertImportedAsset, lockReleaseOfTag } from '../store/imported-assets';
import { findRepository } from '../store/repositories';
import type { ReposContext } from './context';
import { guard } from './guard';

function releaseNotFound(tagName: string): CairnError {
  return CairnError.notFound(`the repository has no release of the tag ${tagName}`, { reason: 'release_not_found' });
}

function checkHeader(asset: ImportedReleaseAsset | undefined): ImportedReleaseAsset & { created: Date } {
  if (asset === undefined) throw CairnError.invalid('the first message names the release asset', { reason: 'asset_header_missing' });
  if (asset.tagName === '' || !Number.isSafeInteger(asset.uploaderId) || asset.uploaderId <= 0 || asset.occurrence < 1) {
    throw CairnError.invalid('an imported release asset needs its tag, uploader and occurrence', { reason: 'asset_invalid' });
  }
  checkAttachmentName(asset.name);
  return { ...asset, downloadCount: Math.max(0, asset.downloadCount), created: asset.created ?? new Date() };
}

/** The bytes of every message, the first's included; a second header is refused. */
async function* bytesOf(first: ImportReleaseAssetRequest, rest: AsyncIterator<ImportReleaseAssetRequest>): AsyncIterable<Uint8Array> {
  if (first.data.length > 0) yield first.data;
  for (let next = await rest.next(); next.done !== true; next = await rest.next()) {
    if (next.value.asset !== undefined) throw CairnError.invalid('only the first message names the release asset', { reason: 'asset_invalid' });
    if (next.value.data.length > 0) yield next.value.data;
  }
}

export async function importReleaseAsset(context: ReposContext, requests: AsyncIterable<ImportReleaseAssetRequest>): Promise<ImportReleaseAssetResponse> {
  const { db, objects, config } = context;
  const iterator = requests[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done === true) throw CairnError.invalid('no release asset was sent', { reason: 'asset_header_missing' });
  const asset = checkHeader(first.value.asset);
  const repo = await guard(() => findRepository(db.pool, asset.repoId));
  if (repo === undefined) throw CairnError.notFound('repository does not exist', { reason: 'repo_not_found' });
  const releaseId = await guard(() => findReleaseOfTag(db.pool, repo.id, asset.tagName));
  if (releaseId === undefined) throw releaseNotFound(asset.tagName);
  const already = await guard(() => assetOccurrence(db.pool, releaseId, asset.name, asset.occurrence));
  if (already !== undefined) return { attachmentId: already.id, uuid: already.uuid, size: already.size, created: false };

  const uuid = randomUUID();
  await guard(() => reserveAttachmentUpload(db.pool, uuid));
  let stored: { size: number };
  try {
    stored = await objects.put(attachmentKey(uuid), bytesOf(first.value, iterator), { maxBytes: config.attachment.maxSize * 1024 * 1024 });
  } catch (error) {
    // The store kept nothing; the reservation goes too.
    await discard(context, uuid);
    if (error instanceof ObjectTooLargeError) {
      throw CairnError.invalid(`release asset ${asset.name} is larger than [attachment] MAX_SIZE (${config.attachment.maxSize} MiB)`, { reason: 'attachment_too_large' });
    }
    throw error;
  }
  try {
    const recorded = await guard(() =>
      db.pool.transaction(async (tx) => {
        const locked = await lockReleaseOfTag(tx, repo.id, asset.tagName);
        if (locked === undefined) throw releaseNotFound(asset.tagName);
        // A concurrent claim of the same import may have added it meanwhile: the release's lock orders the two.
        const existing = await assetOccurrence(tx, locked, asset.name, asset.occurrence);
        if (existing !== undefined) return { row: existing, created: false };
        if (!(await claimAttachmentUpload(tx, uuid))) {
          throw CairnError.precondition('the upload was not reserved, or took longer than its reservation', { reason: 'attachment_not_reserved' });
        }
        const row = await insertImportedAsset(tx, {
          uuid,
          repoId: repo.id,
          releaseId: locked,
          uploaderId: asset.uploaderId,
          name: asset.name,
          size: stored.size,
          downloadCount: asset.downloadCount,
          created: asset.created,
        });
        return { row, created: true };
      }),
    );
    if (!recorded.created) await discard(context, uuid);
    return { attachmentId: recorded.row.id, uuid: recorded.row.uuid, size: recorded.row.size, created: recorded.created };
  } catch (error) {
    await discard(context, uuid);
    throw error;
  }
}

/** Bytes stored but not recorded: their reservation falls due now and the purger removes them. */
async function discard(context: ReposContext, uuid: string): Promise<void> {
  try {
    await abandonAttachmentUpload(context.db.pool, uuid);
    await purgeAttachmentsNow(context);
  } catch (error) {
    // The reservation stays: the purger removes the bytes when it falls due.
    context.logger.warn({ err: error, attachment_uuid: uuid }, 'could not remove the bytes of an unrecorded release asset yet');
  }
}
