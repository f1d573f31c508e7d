import { Code } from '@cairn/rpc';
import { commitishSpec, parseCommitId } from './commitish';

const invalid = (reason: string) => expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason });

describe('commitishSpec', () => {
  it('keeps full commit ids (lower-cased) and full ref names, and makes branch names refs', () => {
    expect(commitishSpec('A'.repeat(40), 'head')).toBe('a'.repeat(40));
    expect(commitishSpec('b'.repeat(64), 'head')).toBe('b'.repeat(64));
    expect(commitishSpec('refs/pull/3/head', 'head')).toBe('refs/pull/3/head');
    expect(commitishSpec('feature/x', 'head')).toBe('refs/heads/feature/x');
  });

  it('refuses options, ranges, revision expressions and empty names', () => {
    for (const value of ['', '-n', '--output=/tmp/x', 'a..b', 'main~1', 'main^', 'HEAD@{1}', 'a b', ':/text']) {
      expect(() => commitishSpec(value, 'head')).toThrow(invalid('invalid_revision'));
    }
  });
});

describe('parseCommitId', () => {
  it('accepts only full ids', () => {
    expect(parseCommitId('ABCDEF0123'.repeat(4), 'commit')).toBe('abcdef0123'.repeat(4));
    for (const value of ['', 'abc', 'g'.repeat(40), 'a'.repeat(41), 'main']) {
      expect(() => parseCommitId(value, 'commit')).toThrow(invalid('invalid_commit_id'));
    }
  });
});
