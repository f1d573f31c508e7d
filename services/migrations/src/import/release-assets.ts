/**
 * Release assets of an import (Gitea's services/migrations/gitea_uploader.go CreateReleases): each asset's bytes
 * stream from the source (the downloader's openReleaseAsset, through the outbound guard) to repos'
 * ImportService.ImportReleaseAsset, which stores and records them with the source's name, download count and time.
 * What a release already has (ImportReleases answers its assets' names) is not sent again, so a resumed import that
 * resends a batch adds nothing twice; assets of one name are told apart by their order in the source release.
 * Gitea stores an asset of any size; Cairn keeps `[attachment] MAX_SIZE` and skips a larger asset with a log line
 * (docs/api.md), rather than failing the whole import over it.
 */
import type { Readable } from 'node:stream';
import type { Logger } from '@cairn/log';
import type { Release, ReleaseAsset } from '@cairn/migration';
import type { ImportReleaseAssetRequest, ImportedReleaseState } from '@cairn/proto/cairn/repos/v1/import_service';
import { isCairnError } from '@cairn/rpc';
import type { MigrationsClients } from '../rpc/context';

export interface AssetSource {
  /** The asset's bytes from the source (Downloader.openReleaseAsset). */
  open(asset: ReleaseAsset): Promise<Readable>;
  /** `[attachment] MAX_SIZE` in bytes. */
  maxBytes: number;
}

/** Bytes per message: well under the gRPC message limit, large enough that a big asset is not a million messages. */
const CHUNK_BYTES = 256 * 1024;

/** Gitea's CreateReleases: an asset without a creation time takes its update time, else its release's. */
function createdOf(asset: ReleaseAsset, release: Release): Date {
  if (asset.created.getTime() > 0) return asset.created;
  if (asset.updated.getTime() > 0) return asset.updated;
  return release.published;
}

async function* messages(header: ImportReleaseAssetRequest['asset'], body: Readable): AsyncIterable<ImportReleaseAssetRequest> {
  yield { asset: header, data: Buffer.alloc(0) };
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield { asset: undefined, data: bytes.subarray(at, at + CHUNK_BYTES) };
  }
}

/**
 * Imports the assets of `releases` that the repository's releases (`states`, from ImportReleases) do not have yet.
 * `uploaderOf` names the local user each release's assets are recorded as uploaded by (its publisher's).
 */
export async function importReleaseAssets(
  clients: MigrationsClients,
  repoId: number,
  releases: readonly Release[],
  states: readonly ImportedReleaseState[],
  uploaderOf: (release: Release) => number,
  source: AssetSource,
  log: Logger,
): Promise<{ imported: number; skipped: number }> {
  const byTag = new Map(states.map((state) => [state.tagName.toLowerCase(), state]));
  let imported = 0;
  let skipped = 0;
  for (const release of releases) {
    const state = byTag.get(release.tagName.toLowerCase());
    if (state === undefined || release.assets.length === 0) continue;
    const had = new Map<string, number>();
    for (const name of state.assetNames) had.set(name, (had.get(name) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const asset of release.assets) {
      const occurrence = (seen.get(asset.name) ?? 0) + 1;
      seen.set(asset.name, occurrence);
      if (occurrence <= (had.get(asset.name) ?? 0)) continue;
      const what = { step: 'releases', tag: release.tagName, asset: asset.name, size: asset.size };
      if (asset.size !== undefined && asset.size > source.maxBytes) {
        log.warn(what, 'release asset larger than [attachment] MAX_SIZE; skipped');
        skipped += 1;
        continue;
      }
      const body = await source.open(asset);
      try {
        await clients.releaseImports.importReleaseAsset(
          messages(
            {
              repoId,
              tagName: release.tagName,
              name: asset.name,
              occurrence,
              downloadCount: asset.downloadCount ?? 0,
              created: createdOf(asset, release),
              uploaderId: uploaderOf(release),
            },
            body,
          ),
        );
        imported += 1;
      } catch (error) {
        // The source's size was missing or wrong: repos refused the bytes past the limit and kept none.
        if (!(isCairnError(error) && error.reason === 'attachment_too_large')) throw error;
        log.warn({ ...what, err: error }, 'release asset larger than [attachment] MAX_SIZE; skipped');
        skipped += 1;
      } finally {
        body.destroy();
      }
    }
  }
  return { imported, skipped };
}
