/**
 * AnalysisService: what a revision's files are — bytes per language (Gitea's `GET /repos/{o}/{r}/languages`) and
 * the licences of its root licence files (Gitea's repo_license). Both answers depend on the commit alone, so they
 * are cached by commit id: a tree walk runs once per commit, not once per request.
 */
import type { AnalysisServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import { languageStats } from '../domain/language-stats';
import { isLicenseFile, matchLicense } from '../domain/license-match';
import { openRepository } from '../git/open-repository';
import { readObjects } from '../git/objects';
import { lookupRevision, resolveRevision } from '../git/revisions';
import { listDirectory, listFiles } from '../git/tree';
import { licenseMatchers } from '../templates/catalog';
import type { GitStorageContext } from './context';

/** Commits whose answers are kept, per kind (oldest forgotten first). */
const CACHED_COMMITS = 1000;

/** Licence files larger than this are not licence texts (the longest SPDX text is about 100 KiB). */
const MAX_LICENSE_BYTES = 256 * 1024;

/** A bounded map from commit id to answer; the same commit has the same tree in every repository. */
class CommitCache<T> {
  private readonly entries = new Map<string, T>();

  get(sha: string): T | undefined {
    return this.entries.get(sha);
  }

  set(sha: string, value: T): void {
    this.entries.delete(sha);
    this.entries.set(sha, value);
    if (this.entries.size > CACHED_COMMITS) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** The commit `revision` names; undefined for HEAD of an empty repository (no branch yet). */
async function commitOf(gitDir: string, revision: string): Promise<string | undefined> {
  if (revision === '' || revision === 'HEAD') return (await lookupRevision(gitDir, revision))?.sha;
  return (await resolveRevision(gitDir, revision)).sha;
}

async function detectLicenses(gitDir: string, sha: string): Promise<string[]> {
  const root = (await listDirectory(gitDir, sha, '')) ?? [];
  const files = root.filter((entry) => entry.type === 'file' && isLicenseFile(entry.name) && entry.size <= MAX_LICENSE_BYTES);
  if (files.length === 0) return [];
  const [blobs, templates] = await Promise.all([readObjects(gitDir, files.map((file) => file.sha)), licenseMatchers()]);
  const found = new Set<string>();
  for (const file of files) {
    const blob = blobs.get(file.sha);
    const id = blob === undefined ? undefined : matchLicense(blob.data.toString('utf8'), templates);
    if (id !== undefined) found.add(id);
  }
  return [...found].sort();
}

export function createAnalysisService(context: GitStorageContext): AsyncServiceOf<typeof AnalysisServiceService> {
  const languages = new CommitCache<Record<string, number>>();
  const licenses = new CommitCache<string[]>();

  return {
    async getLanguageStats(request) {
      const gitDir = await openRepository(context.root, request.repository);
      const sha = await commitOf(gitDir, request.revision);
      if (sha === undefined) return { languages: {}, commitSha: '' };
      let stats = languages.get(sha);
      if (stats === undefined) {
        stats = Object.fromEntries(languageStats(await listFiles(gitDir, sha)));
        languages.set(sha, stats);
      }
      return { languages: stats, commitSha: sha };
    },

    async detectLicenses(request) {
      const gitDir = await openRepository(context.root, request.repository);
      const sha = await commitOf(gitDir, request.revision);
      if (sha === undefined) return { licenses: [], commitSha: '' };
      let found = licenses.get(sha);
      if (found === undefined) {
        found = await detectLicenses(gitDir, sha);
        licenses.set(sha, found);
      }
      return { licenses: found, commitSha: sha };
    },
  };
}
