import { Code, CairnError } from '@cairn/rpc';
import { MAX_PATH_BYTES, normalizeFilePath, normalizeRepoPath } from './paths';

function errorOf(fn: () => void): CairnError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('expected a CairnError');
}

describe('normalizeRepoPath', () => {
  it.each([
    ['', ''],
    ['README.md', 'README.md'],
    ['docs/a.md', 'docs/a.md'],
    ['docs/', 'docs'],
    ['docs//a.md', 'docs/a.md'],
    ['./docs/./a.md', 'docs/a.md'],
    ['.', ''],
    ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
    ['a/.gitignore', 'a/.gitignore'],
    ['x.git/y', 'x.git/y'],
    ['dir with space/ü.txt', 'dir with space/ü.txt'],
    ['...', '...'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeRepoPath(input)).toBe(expected);
  });

  it.each([
    '/etc/passwd',
    '../secret',
    'a/../../b',
    'a/..',
    '.git/config',
    'a/.git/hooks/pre-receive',
    '.GIT/config',
    'a/.Git',
    'nul\u0000byte',
    'new\nline',
    'esc\u001b',
    'x'.repeat(MAX_PATH_BYTES + 1),
  ])('refuses %j with INVALID_ARGUMENT invalid_path', (input) => {
    const error = errorOf(() => normalizeRepoPath(input));
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.reason).toBe('invalid_path');
  });

  it('keeps control characters out of the message', () => {
    expect(errorOf(() => normalizeRepoPath('a\u0000b')).message).not.toContain('\u0000');
  });
});

describe('normalizeFilePath', () => {
  it('refuses the root', () => {
    for (const root of ['', '/', '.', './']) {
      const error = errorOf(() => normalizeFilePath(root));
      expect(error.reason).toBe('invalid_path');
    }
    expect(normalizeFilePath('a//b/')).toBe('a/b');
  });
});
