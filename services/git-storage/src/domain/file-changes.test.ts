import type { FileChange, TreeEntry } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code } from '@cairn/rpc';
import { type CheckedChange, checkChanges, pathsToLookUp, planIndexEdits } from './file-changes';

const change = (file: Partial<FileChange>): FileChange => ({ operation: 'create', path: 'a.txt', content: Buffer.from('x'), sha: '', fromPath: '', ...file });

function entry(path: string, type: string, sha = 's'.repeat(40), mode = type === 'dir' ? '040000' : '100644'): TreeEntry {
  return { name: path.split('/').pop() ?? '', path, type, sha, size: 1, mode, target: '', lastCommit: undefined };
}

function errorOf(fn: () => unknown): CairnError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('expected a CairnError');
}

const entries = new Map<string, TreeEntry>([
  ['a.txt', entry('a.txt', 'file', '1'.repeat(40))],
  ['run.sh', entry('run.sh', 'file', '2'.repeat(40), '100755')],
  ['dir', entry('dir', 'dir')],
  ['dir/b.txt', entry('dir/b.txt', 'file')],
  ['link', entry('link', 'symlink')],
]);

const plan = (files: Partial<FileChange>[]) => planIndexEdits(checkChanges(files.map(change), 100), entries);

describe('checkChanges', () => {
  it('normalizes paths and defaults the source path', () => {
    expect(checkChanges([change({ path: './x//y/' })], 10)).toEqual([
      { operation: 'create', path: 'x/y', fromPath: 'x/y', content: Buffer.from('x'), sha: '' },
    ]);
  });

  it.each([
    [[change({ operation: 'move' })], 'invalid_operation'],
    [[change({ operation: 'create', fromPath: 'b' })], 'invalid_operation'],
    [[change({ path: '../x' })], 'invalid_path'],
    [[change({ operation: 'update', fromPath: '.git/config' })], 'invalid_path'],
    [[change({ content: Buffer.alloc(11) })], 'file_too_large'],
    [[], 'no_changes'],
  ])('refuses %j (%s)', (files, reason) => {
    const error = errorOf(() => checkChanges(files, 10));
    expect(error).toMatchObject({ code: Code.INVALID_ARGUMENT, reason });
  });

  it('lets deletions through whatever their content', () => {
    expect(() => checkChanges([change({ operation: 'delete', content: Buffer.alloc(11) })], 10)).not.toThrow();
  });
});

describe('pathsToLookUp', () => {
  it('names every leading directory and the source', () => {
    const changes: CheckedChange[] = [{ operation: 'update', path: 'x/y/z.txt', fromPath: 'old.txt', content: Buffer.alloc(0), sha: '' }];
    expect(pathsToLookUp(changes).sort()).toEqual(['old.txt', 'x', 'x/y', 'x/y/z.txt']);
  });
});

describe('planIndexEdits', () => {
  it('turns changes into index edits, keeping executables executable', () => {
    expect(
      plan([
        { operation: 'create', path: 'dir/new.txt' },
        { operation: 'update', path: 'run.sh', sha: '2'.repeat(40) },
        { operation: 'update', path: 'moved.txt', fromPath: 'a.txt' },
        { operation: 'delete', path: 'dir/b.txt' },
        { operation: 'upload', path: 'fresh.txt' },
        { operation: 'upload', path: 'a.txt' },
      ]),
    ).toEqual([
      { kind: 'write', path: 'dir/new.txt', mode: '100644', content: Buffer.from('x') },
      { kind: 'write', path: 'run.sh', mode: '100755', content: Buffer.from('x') },
      { kind: 'remove', path: 'a.txt' },
      { kind: 'write', path: 'moved.txt', mode: '100644', content: Buffer.from('x') },
      { kind: 'remove', path: 'dir/b.txt' },
      { kind: 'write', path: 'fresh.txt', mode: '100644', content: Buffer.from('x') },
      { kind: 'write', path: 'a.txt', mode: '100644', content: Buffer.from('x') },
    ]);
  });

  it.each([
    [{ operation: 'create', path: 'a.txt' }, Code.ALREADY_EXISTS, 'file_exists'],
    [{ operation: 'update', path: 'dir/b.txt', fromPath: 'a.txt' }, Code.ALREADY_EXISTS, 'file_exists'],
    [{ operation: 'update', path: 'nope.txt' }, Code.NOT_FOUND, 'file_not_found'],
    [{ operation: 'delete', path: 'nope.txt' }, Code.NOT_FOUND, 'file_not_found'],
    [{ operation: 'update', path: 'a.txt', sha: '9'.repeat(40) }, Code.FAILED_PRECONDITION, 'sha_mismatch'],
    [{ operation: 'upload', path: 'new.txt', sha: '9'.repeat(40) }, Code.FAILED_PRECONDITION, 'sha_mismatch'],
    [{ operation: 'create', path: 'a.txt/x' }, Code.FAILED_PRECONDITION, 'path_conflict'],
    [{ operation: 'create', path: 'dir' }, Code.FAILED_PRECONDITION, 'path_conflict'],
    [{ operation: 'update', path: 'link' }, Code.FAILED_PRECONDITION, 'path_conflict'],
    [{ operation: 'delete', path: 'dir' }, Code.FAILED_PRECONDITION, 'path_conflict'],
  ] as const)('refuses %j', (file, code, reason) => {
    expect(errorOf(() => plan([file]))).toMatchObject({ code, reason });
  });
});
