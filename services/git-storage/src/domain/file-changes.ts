/**
 * The rules of a contents-API write (Gitea's ChangeRepoFiles / handleCheckErrors), without I/O: each requested
 * change is checked against the entries of the parent commit, then becomes index edits. Nothing is written unless
 * every change passes.
 */
import type { FileChange, TreeEntry } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { normalizeFilePath } from '../git/paths';

export type Operation = 'create' | 'update' | 'delete' | 'upload';
const OPERATIONS: ReadonlySet<string> = new Set<Operation>(['create', 'update', 'delete', 'upload']);

/** A request's change with its paths normalized. */
export interface CheckedChange {
  operation: Operation;
  path: string;
  /** The path the file comes from: `from_path` for a move, else `path`. */
  fromPath: string;
  content: Buffer;
  sha: string;
}

/** One edit of the temporary index. */
export type IndexEdit = { kind: 'write'; path: string; mode: '100644' | '100755'; content: Buffer } | { kind: 'remove'; path: string };

/** Every path (and leading directory) whose entry `planIndexEdits` needs to know. */
export function pathsToLookUp(changes: readonly CheckedChange[]): string[] {
  const paths = new Set<string>();
  for (const change of changes) {
    paths.add(change.fromPath);
    const segments = change.path.split('/');
    for (let end = 1; end <= segments.length; end += 1) paths.add(segments.slice(0, end).join('/'));
  }
  return [...paths];
}

/**
 * Validates the request's changes: known operations, clean paths (INVALID_ARGUMENT `invalid_path`), `from_path`
 * only on updates, content no larger than `maxFileSize` (INVALID_ARGUMENT `file_too_large`).
 */
export function checkChanges(files: readonly FileChange[], maxFileSize: number): CheckedChange[] {
  if (files.length === 0) throw CairnError.invalid('no file changes', { reason: 'no_changes' });
  return files.map((file) => {
    if (!OPERATIONS.has(file.operation)) {
      throw CairnError.invalid(`unknown file operation "${file.operation}"`, { reason: 'invalid_operation' });
    }
    const operation = file.operation as Operation;
    const path = normalizeFilePath(file.path);
    if (file.fromPath !== '' && operation !== 'update') {
      throw CairnError.invalid(`from_path is only for updates [path: ${path}]`, { reason: 'invalid_operation' });
    }
    const fromPath = file.fromPath === '' ? path : normalizeFilePath(file.fromPath);
    if (operation !== 'delete' && file.content.length > maxFileSize) {
      throw CairnError.invalid(`file is larger than ${maxFileSize} bytes [path: ${path}]`, { reason: 'file_too_large' });
    }
    return { operation, path, fromPath, content: Buffer.from(file.content), sha: file.sha };
  });
}

const pathConflict = (message: string) => CairnError.precondition(message, { reason: 'path_conflict' });

/** The entry the change replaces or removes (checked: it exists where needed, and its sha matches). */
function checkSource(change: CheckedChange, entries: ReadonlyMap<string, TreeEntry>): TreeEntry | undefined {
  if (change.operation === 'create') return undefined;
  const entry = entries.get(change.fromPath);
  if (entry === undefined && change.operation !== 'upload') {
    throw CairnError.notFound(`file does not exist [path: ${change.fromPath}]`, { reason: 'file_not_found' });
  }
  if (entry?.type === 'dir') throw pathConflict(`a directory exists where you’re trying to change a file [path: ${change.fromPath}]`);
  if (change.sha !== '' && change.sha !== (entry?.sha ?? '')) {
    throw CairnError.precondition(`sha does not match [given: ${change.sha}, expected: ${entry?.sha ?? ''}]`, { reason: 'sha_mismatch' });
  }
  return entry;
}

/** Checks the place the change writes to: no file on the way, nothing in the way unless it is replaced. */
function checkTarget(change: CheckedChange, entries: ReadonlyMap<string, TreeEntry>): void {
  const segments = change.path.split('/');
  for (let end = 1; end <= segments.length; end += 1) {
    const prefix = segments.slice(0, end).join('/');
    const entry = entries.get(prefix);
    if (entry === undefined) return;
    if (end < segments.length) {
      if (entry.type !== 'dir') throw pathConflict(`a file exists where you’re trying to create a subdirectory [path: ${prefix}]`);
    } else if (entry.type === 'symlink') {
      throw pathConflict(`a symbolic link exists where you’re trying to create a file [path: ${prefix}]`);
    } else if (entry.type === 'dir') {
      throw pathConflict(`a directory exists where you’re trying to create a file [path: ${prefix}]`);
    } else if (change.operation === 'create' || change.fromPath !== change.path) {
      throw CairnError.exists(`repository file already exists [path: ${change.path}]`, { reason: 'file_exists' });
    }
  }
}

/**
 * The index edits for `changes`, given the parent commit's entries at `pathsToLookUp(changes)` (absent keys:
 * nothing there). Throws the first rule a change breaks: NOT_FOUND `file_not_found`, ALREADY_EXISTS
 * `file_exists`, FAILED_PRECONDITION `sha_mismatch` or `path_conflict`. An update keeps the executable bit.
 */
export function planIndexEdits(changes: readonly CheckedChange[], entries: ReadonlyMap<string, TreeEntry>): IndexEdit[] {
  const edits: IndexEdit[] = [];
  for (const change of changes) {
    const source = checkSource(change, entries);
    if (change.operation === 'delete') {
      edits.push({ kind: 'remove', path: change.fromPath });
      continue;
    }
    checkTarget(change, entries);
    if (change.fromPath !== change.path) edits.push({ kind: 'remove', path: change.fromPath });
    edits.push({ kind: 'write', path: change.path, mode: source?.mode === '100755' ? '100755' : '100644', content: change.content });
  }
  return edits;
}
