/**
 * Parsing `git diff-tree --stdin -z -r -M --raw --numstat`: for each commit a header (its sha), then its raw
 * entries (status letters, old and new paths), then its numstat entries (line counts) in the same order.
 */
import type { ChangedFile } from '@cairn/proto/cairn/git/v1/git_service';

const STATUS_BY_LETTER: Readonly<Record<string, string>> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'changed',
};

const NUMSTAT = /^(\d+|-)\t(\d+|-)\t/;
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

interface CommitDiff {
  files: ChangedFile[];
  /** Index of the next file whose numstat comes. */
  counted: number;
}

/** Changed files per commit sha; commits without changes are absent (diff-tree prints nothing for them). */
export function parseDiffTree(output: Buffer): Map<string, ChangedFile[]> {
  const tokens = output.toString('utf8').split('\0');
  const diffs = new Map<string, CommitDiff>();
  let current: CommitDiff | undefined;
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] ?? '';
    if (token.startsWith(':') && current !== undefined) {
      // ":<old mode> <new mode> <old sha> <new sha> <status>", then the path (two for renames and copies).
      const letter = (token.split(' ')[4] ?? '').charAt(0);
      const twoPaths = letter === 'R' || letter === 'C';
      const filename = tokens[i + (twoPaths ? 2 : 1)] ?? '';
      current.files.push({
        filename,
        status: STATUS_BY_LETTER[letter] ?? 'changed',
        additions: 0,
        deletions: 0,
        previousFilename: twoPaths ? (tokens[i + 1] ?? '') : '',
      });
      i += twoPaths ? 3 : 2;
    } else if (NUMSTAT.test(token) && current !== undefined) {
      // "<added>\t<deleted>\t<path>", or for renames "<added>\t<deleted>\t" then both paths; "-" for binary files.
      const [added = '-', deleted = '-', path = ''] = token.split('\t');
      const file = current.files[current.counted];
      current.counted += 1;
      if (file !== undefined) {
        file.additions = added === '-' ? 0 : Number(added);
        file.deletions = deleted === '-' ? 0 : Number(deleted);
      }
      i += path === '' ? 3 : 1;
    } else if (OBJECT_ID.test(token)) {
      current = { files: [], counted: 0 };
      diffs.set(token, current);
      i += 1;
    } else {
      i += 1;
    }
  }
  return new Map([...diffs].map(([sha, diff]) => [sha, diff.files]));
}
