/**
 * ImportService (proto/cairn/repos/v1/import_service.proto): a migrated repository's releases, as Gitea's
 * services/migrations/gitea_uploader.go CreateReleases writes them (the tag's commit read from the imported git data;
 * a published release whose tag is missing fails the step). A tag that has a release keeps it, so a resumed import
 * may resend a batch. No event per release; the release counter is recounted once per batch. The answer lists the
 * batch's releases with their assets' names, and the assets follow one call each (import-release-asset.ts).
 */
import { ImportServiceService } from '@cairn/proto/cairn/repos/v1/import_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { toCairnError } from '@cairn/db';
import { findRepository } from '../store/repositories';
import { type ImportRelease, insertImportedRelease, recountReleases } from '../store/releases';
import type { ReposContext } from './context';
import { tagCommit } from './git-tags';
import { importReleaseAsset } from './import-release-asset';
import { releaseAssetNames } from '../store/imported-assets';

export function createImportService(context: ReposContext): AsyncServiceOf<typeof ImportServiceService> {
  const { db } = context;
  return {
    async importReleases(request) {
      const repo = await findRepository(db.pool, request.repoId);
      if (repo === undefined) throw CairnError.notFound('repository does not exist', { reason: 'repo_not_found' });
      const releases: ImportRelease[] = [];
      for (const release of request.releases) {
        if (release.tagName === '' || !Number.isSafeInteger(release.publisherId) || release.publisherId <= 0) {
          throw CairnError.invalid('an imported release needs its tag and publisher', { reason: 'release_invalid' });
        }
        // Gitea's uploader: a draft has no tag yet; a published release takes its tag's commit.
        const sha = release.isDraft ? '' : await tagCommit(context, { storage: repo.storage, repoId: repo.id }, release.tagName);
        if (sha === undefined) {
          throw CairnError.precondition(`the tag ${release.tagName} of a release is missing`, { reason: 'release_tag_missing' });
        }
        const original = release.originalAuthor !== '';
        releases.push({
          repoId: repo.id,
          tagName: release.tagName,
          target: release.target,
          title: release.title,
          note: release.note,
          publisherId: release.publisherId,
          isDraft: release.isDraft,
          isPrerelease: release.isPrerelease,
          sha,
          created: release.created ?? new Date(),
          originalAuthor: release.originalAuthor,
          originalAuthorId: original ? release.originalAuthorId : 0,
        });
      }
      try {
        return await db.pool.transaction(async (tx) => {
          let created = 0;
          for (const release of releases) if (await insertImportedRelease(tx, release)) created += 1;
          if (created > 0) await recountReleases(tx, repo.id);
          const states = await releaseAssetNames(
            tx,
            repo.id,
            releases.map((release) => release.tagName),
          );
          return { created, releases: states.map((state) => ({ tagName: state.tagName, releaseId: state.releaseId, assetNames: state.names })) };
        });
      } catch (error) {
        throw toCairnError(error);
      }
    },

    importReleaseAsset: (requests) => importReleaseAsset(context, requests),
  };
}
