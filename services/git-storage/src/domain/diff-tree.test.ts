import { parseDiffTree } from './diff-tree';

const A = '1'.repeat(40);
const B = '2'.repeat(40);
const Z = '0'.repeat(40);

describe('parseDiffTree', () => {
  it('pairs raw entries with their numstat counts, per commit', () => {
    const output = [
      A,
      `:100644 100644 ${Z} ${Z} M`, 'a.txt',
      `:100644 100644 ${Z} ${Z} R087`, 'old name.txt', 'new name.txt',
      `:000000 100644 ${Z} ${Z} A`, B, // a file whose name looks like an object id
      `:100644 000000 ${Z} ${Z} D`, 'bin.dat',
      '3\t1\ta.txt',
      '1\t0\t', 'old name.txt', 'new name.txt',
      `2\t0\t${B}`,
      '-\t-\tbin.dat',
      B,
      `:100644 100644 ${Z} ${Z} T`, 'link',
      '0\t0\tlink',
      '',
    ].join('\0');
    const files = parseDiffTree(Buffer.from(output));
    expect(files.get(A)).toEqual([
      { filename: 'a.txt', status: 'modified', additions: 3, deletions: 1, previousFilename: '' },
      { filename: 'new name.txt', status: 'renamed', additions: 1, deletions: 0, previousFilename: 'old name.txt' },
      { filename: B, status: 'added', additions: 2, deletions: 0, previousFilename: '' },
      { filename: 'bin.dat', status: 'removed', additions: 0, deletions: 0, previousFilename: '' },
    ]);
    expect(files.get(B)).toEqual([{ filename: 'link', status: 'changed', additions: 0, deletions: 0, previousFilename: '' }]);
  });

  it('answers nothing for empty output', () => {
    expect(parseDiffTree(Buffer.alloc(0)).size).toBe(0);
  });
});
