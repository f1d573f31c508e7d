/** What every ImportService RPC checks of its input (the repository, the poster, an issue's title). */
import type { ImportedAuthor } from '@cairn/proto/cairn/issues/v1/import_service';
import { CairnError } from '@cairn/rpc';

/** Gitea's uploader truncates issue titles to the column's 255 characters (base.TruncateString). */
const TITLE_MAX = 255;

export function requireRepo(repoId: number): void {
  if (!Number.isSafeInteger(repoId) || repoId <= 0) throw CairnError.invalid('repo_id is required', { reason: 'repo_required' });
}

/** The poster's columns: a local user, or the importing user standing for a source user (original_author). */
export function authorColumns(author: ImportedAuthor | undefined): { posterId: number; originalAuthor: string; originalAuthorId: number } {
  if (author === undefined || !Number.isSafeInteger(author.userId) || author.userId <= 0) {
    throw CairnError.invalid('an imported item needs a poster', { reason: 'poster_required' });
  }
  return { posterId: author.userId, originalAuthor: author.originalAuthor, originalAuthorId: author.originalAuthor === '' ? 0 : author.originalAuthorId };
}

export function importedTitle(title: string): string {
  const trimmed = [...title.trim()].slice(0, TITLE_MAX).join('');
  if (trimmed === '') throw CairnError.invalid('an imported issue needs a title', { reason: 'issue_title_required' });
  return trimmed;
}
