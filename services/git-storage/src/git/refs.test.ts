import { Code, CairnError } from '@cairn/rpc';
import { assertValidRefName, assertValidRevision, branchRef, isCommitIdLike, refNameProblem, tagRef } from './refs';

function errorOf(fn: () => void): CairnError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('expected a CairnError');
}

describe('assertValidRefName', () => {
  it.each(['main', 'feature/x', 'release-1.0', 'v1.2.3', 'a.b/c_d', 'héllo', 'x@y', 'UPPER'])('accepts %j', (name) => {
    expect(() => assertValidRefName(name)).not.toThrow();
  });

  it.each([
    '',
    '@',
    '-x',
    '--upload-pack=evil',
    '/main',
    'main/',
    'main.',
    'a//b',
    'a..b',
    '../x',
    'a@{1}',
    'a b',
    'tab\there',
    'nul\u0000',
    'del\u007f',
    'new\nline',
    'a~1',
    'a^',
    'a:b',
    'a?',
    'a*',
    'a[b',
    'a\\b',
    '.hidden',
    'x/.hidden',
    'x.lock',
    'x.lock/y',
  ])('refuses %j with INVALID_ARGUMENT invalid_ref_name', (name) => {
    const error = errorOf(() => assertValidRefName(name));
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.reason).toBe('invalid_ref_name');
  });

  it('says what is wrong', () => {
    expect(refNameProblem('a..b')).toBe('contains ".."');
    expect(refNameProblem('ok')).toBeUndefined();
  });
});

describe('assertValidRevision', () => {
  it.each(['main', 'feature/x', 'v1.0', 'abc123', 'HEAD'])('accepts %j', (revision) => {
    expect(() => assertValidRevision(revision)).not.toThrow();
  });

  it.each(['', '-x', '--all', 'a..b', 'a...b', 'a\nb', 'nul\u0000'])('refuses %j', (revision) => {
    const error = errorOf(() => assertValidRevision(revision));
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.reason).toBe('invalid_revision');
  });
});

describe('isCommitIdLike', () => {
  it.each([
    ['abcd', true],
    ['ABCDEF0123', true],
    ['a'.repeat(40), true],
    ['abc', false],
    ['a'.repeat(41), false],
    ['main', false],
    ['abcg', false],
  ])('%j → %s', (value, expected) => {
    expect(isCommitIdLike(value)).toBe(expected);
  });
});

describe('branchRef / tagRef', () => {
  it('prefixes valid names', () => {
    expect(branchRef('feature/x')).toBe('refs/heads/feature/x');
    expect(tagRef('v1')).toBe('refs/tags/v1');
  });

  it('validates first', () => {
    expect(() => branchRef('a..b')).toThrow(CairnError);
    expect(() => tagRef('-d')).toThrow(CairnError);
  });
});
