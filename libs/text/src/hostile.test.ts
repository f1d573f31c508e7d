/**
 * Every tool that reads user text, fed 1 MB built to make a backtracking matcher quadratic or exponential. The bound
 * is generous (the machine is shared; these take tens of milliseconds, `npm run bench -- --only text` reports the
 * figures): a backtracking implementation takes minutes on the same input.
 */
import { DEFAULT_CLOSE_KEYWORDS, DEFAULT_REOPEN_KEYWORDS } from '@cairn/config';
import { globMatcher } from './glob';
import { withoutCode } from './markdown-code';
import { findMentionedNames } from './mentions';
import { issueReferences } from './references';
import { tagPatternMatcher } from './tag-pattern';

const MB = 1 << 20;
const BOUND_MS = 5000;
const keywords = { close: DEFAULT_CLOSE_KEYWORDS, reopen: DEFAULT_REOPEN_KEYWORDS };

function timed<T>(work: () => T): T {
  const started = performance.now();
  const result = work();
  expect(performance.now() - started).toBeLessThan(BOUND_MS);
  return result;
}

describe('1 MB of hostile text is read in linear time', () => {
  it('code spans: a run of backticks then letters (the old pattern rescanned the letters from every backtick)', () => {
    // Not at a line start, where three backticks would open a fenced block instead.
    const body = `x ${'`'.repeat(MB / 2)}${'a'.repeat(MB / 2)}`;
    expect(timed(() => withoutCode(body)) === body).toBe(true);
    const pairs = '` `` '.repeat(MB / 5);
    expect(timed(() => withoutCode(pairs)).length).toBe(pairs.length);
  });

  it('fenced and indented code blocks', () => {
    expect(timed(() => withoutCode(`\`\`\`\n${'``\n'.repeat(MB / 3)}@x`)).trim()).toBe('');
    expect(timed(() => withoutCode('    x\n'.repeat(MB / 6))).trim()).toBe('');
  });

  it('mentions behind backticks, and names that never end', () => {
    expect(timed(() => findMentionedNames(`x ${'`'.repeat(MB / 2)}${'a'.repeat(MB / 2)} @last`))).toEqual(['last']);
    expect(timed(() => findMentionedNames(` @${'a.'.repeat(MB / 2)}@`))).toEqual([]);
    expect(timed(() => findMentionedNames(' @a'.repeat(MB / 3)))).toHaveLength(1);
  });

  it('references and closing keywords', () => {
    expect(timed(() => issueReferences(` ${'a/'.repeat(MB / 2)}#1`, keywords, true))).toEqual([]);
    expect(timed(() => issueReferences(` ${'a'.repeat(MB)}/b#x`, keywords, true))).toEqual([]);
    expect(timed(() => issueReferences(`${'fixes '.repeat(MB / 6)}#7`, keywords, true))).toEqual([{ owner: '', repo: '', index: 7, action: 'close' }]);
    expect(timed(() => issueReferences(`x ${'`'.repeat(MB / 2)}${'fixes #1 '.repeat(MB / 18)}`, keywords, true))).toHaveLength(100);
  });

  it('globs: a rule name that makes a backtracking matcher exponential, against a 1 MB branch name', () => {
    const name = 'a'.repeat(MB);
    expect(timed(() => globMatcher('**a**a**a**a**a**a**a**b', { plainIgnoresCase: true, invalid: 'literal' })(name))).toBe(false);
    expect(timed(() => globMatcher('*a*a*a*a*a*a*a*b')(name))).toBe(false);
    expect(timed(() => globMatcher('{a,aa,aaa}*{a,aa}*{a,aa}*b', { separators: './' })(name))).toBe(false);
    expect(timed(() => globMatcher('**a**a**a**a**a**a**a**a')(name))).toBe(true);
  });

  it('globs whose sets of states never repeat fall back to a plain simulation, still linear', () => {
    // A pseudo-random mix of `a` and `b` (xorshift): the last 25 characters decide, and the sets of states met
    // (2^24 of them) overflow the cache.
    let seed = 2463534242;
    const text = Array.from({ length: MB }, () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed & 1) === 0 ? 'a' : 'b';
    }).join('');
    expect(timed(() => globMatcher(`**a${'?'.repeat(24)}`)(text))).toBe(text.at(-25) === 'a');
  });

  it('protected tag patterns: globs without separators, and regular expressions that would backtrack', () => {
    const name = 'a'.repeat(MB);
    expect(timed(() => tagPatternMatcher('*a*a*a*a*a*a*a*b')(name))).toBe(false);
    expect(timed(() => tagPatternMatcher('/^(a+)+$b/')(name))).toBe(false);
    expect(timed(() => tagPatternMatcher('/(a|aa)*c/')(name))).toBe(false);
    expect(timed(() => tagPatternMatcher('/^(a|a)*$/')(name))).toBe(true);
  });
});
