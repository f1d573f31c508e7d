/**
 * Paths inside a repository's tree as users write them (contents API, raw files, file writes). A path is relative
 * to the root, `/`-separated, and may not climb out of the tree or touch git's own directory.
 */
import { CairnError } from '@cairn/rpc';

/** Longest path accepted, in bytes (Linux PATH_MAX, which git's checkout needs too). */
export const MAX_PATH_BYTES = 4096;

function invalidPath(path: string, problem: string): CairnError {
  return CairnError.invalid(`invalid path "${path.replace(/[\u0000-\u001f\u007f]/g, '?')}": ${problem}`, { reason: 'invalid_path' });
}

/**
 * The canonical form of a tree path: no leading, trailing or doubled `/`, no `.` segments; `''` is the root.
 * Throws INVALID_ARGUMENT (reason `invalid_path`) for absolute paths, `..` segments, `.git` segments (any case:
 * case-insensitive checkouts read `.GIT` as `.git`), NUL or other control characters, and over-long paths.
 */
export function normalizeRepoPath(path: string): string {
  if (/[\u0000-\u001f\u007f]/.test(path)) throw invalidPath(path, 'contains a control character');
  if (path.startsWith('/')) throw invalidPath(path, 'is absolute');
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) throw invalidPath(path, 'is too long');
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw invalidPath(path, 'climbs out of the tree');
    if (segment.toLowerCase() === '.git') throw invalidPath(path, 'names a .git directory');
    segments.push(segment);
  }
  return segments.join('/');
}

/** normalizeRepoPath for paths that must name a file or directory (not the root). */
export function normalizeFilePath(path: string): string {
  const normalized = normalizeRepoPath(path);
  if (normalized === '') throw invalidPath(path, 'is empty');
  return normalized;
}
