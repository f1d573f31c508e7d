import { type GlobOptions, globMatcher, isGlobPattern } from './glob';

/** Branch rule names as Gitea matches them. */
const RULE_NAME: GlobOptions = { plainIgnoresCase: true, invalid: 'literal' };
/** Protected file patterns as Gitea compiles them. */
const FILE_PATTERN: GlobOptions = { separators: './' };

const matches = (pattern: string, text: string, options: GlobOptions = {}) => globMatcher(pattern, options)(text);

describe('isGlobPattern', () => {
  it.each(['main', 'release/v1.0', 'feature-x', 'a+b', '(x)'])('%s is a plain name', (name) => expect(isGlobPattern(name)).toBe(false));
  it.each(['release/*', 'v?', '[ab]', '{a,b}', 'a\\b', 'x]', 'x}'])('%s is a glob', (name) => expect(isGlobPattern(name)).toBe(true));
});

describe('globMatcher', () => {
  it('matches plain names exactly, ignoring case only when asked', () => {
    expect(matches('main', 'main')).toBe(true);
    expect(matches('main', 'main2')).toBe(false);
    expect(matches('Main', 'main')).toBe(false);
    expect(matches('Main', 'main', RULE_NAME)).toBe(true);
    expect(matches('release/v1.0', 'release/v1x0', RULE_NAME)).toBe(false);
  });

  it('is case-sensitive for globs', () => {
    expect(matches('Release/*', 'release/v1', RULE_NAME)).toBe(false);
  });

  it('keeps * and ? within a path segment', () => {
    expect(matches('release/*', 'release/v1')).toBe(true);
    expect(matches('release/*', 'release/v1/hotfix')).toBe(false);
    expect(matches('release/*', 'release/')).toBe(true);
    expect(matches('v?', 'v1')).toBe(true);
    expect(matches('v?', 'v/')).toBe(false);
    expect(matches('feat-?', 'feat-ab')).toBe(false);
    expect(matches('*', 'feature/x')).toBe(false);
  });

  it('lets ** cross segments', () => {
    expect(matches('release/**', 'release/v1/hotfix')).toBe(true);
    expect(matches('release/**', 'release')).toBe(false);
    expect(matches('**', 'feature/a/b')).toBe(true);
    expect(matches('**/fix', 'a/b/fix')).toBe(true);
  });

  it('stops * and ? at every separator given', () => {
    expect(matches('docs/*.md', 'docs/readme.md', FILE_PATTERN)).toBe(true);
    expect(matches('docs/*.md', 'docs/a.b.md', FILE_PATTERN)).toBe(false);
    expect(matches('docs/*.md', 'docs/sub/a.md', FILE_PATTERN)).toBe(false);
    expect(matches('a?b', 'a.b', FILE_PATTERN)).toBe(false);
    expect(matches('**/*.lock', 'deep/dir/yarn.lock', FILE_PATTERN)).toBe(true);
    expect(matches('*', 'a-b', { separators: '-' })).toBe(false);
    expect(matches('*', 'a/b', { separators: '' })).toBe(true);
  });

  it('takes dots and other regular expression characters literally', () => {
    expect(matches('v1.*', 'v1.2')).toBe(true);
    expect(matches('v1.*', 'v1x2')).toBe(false);
    expect(matches('a+(b)|c*', 'a+(b)|cd')).toBe(true);
    expect(matches('a+*', 'aa')).toBe(false);
    expect(matches('^a$*', '^a$b')).toBe(true);
    expect(matches('x]', 'x]')).toBe(true);
    expect(matches('x}', 'x}')).toBe(true);
  });

  it('supports classes, ranges, negated classes and alternatives', () => {
    expect(matches('v[12]', 'v1')).toBe(true);
    expect(matches('v[12]', 'v3')).toBe(false);
    expect(matches('v[!12]', 'v3')).toBe(true);
    expect(matches('v[!12]', 'v1')).toBe(false);
    expect(matches('v[0-9]*', 'v7-beta')).toBe(true);
    expect(matches('v[.^]', 'v^')).toBe(true);
    expect(matches('v[.^]', 'vx')).toBe(false);
    expect(matches('{main,develop}', 'develop')).toBe(true);
    expect(matches('{main,develop}', 'feature')).toBe(false);
    expect(matches('release/{v1,v2}/*', 'release/v2/x')).toBe(true);
    expect(matches('{a,{b,c}d}', 'cd')).toBe(true);
    expect(matches('a,b', 'a,b')).toBe(true);
  });

  it('escapes with a backslash, inside classes too', () => {
    expect(matches('a\\*', 'a*')).toBe(true);
    expect(matches('a\\*', 'ab')).toBe(false);
    expect(matches('a\\d', 'ad')).toBe(true);
    expect(matches('a\\d', 'a1')).toBe(false);
    expect(matches('[\\]x]', ']')).toBe(true);
    expect(matches('a\\-b', 'a-b')).toBe(true);
  });

  it('counts a character outside the BMP as one', () => {
    expect(matches('v?', 'v😀')).toBe(true);
  });

  it('matches an uncompilable pattern literally or not at all, as asked', () => {
    for (const pattern of ['[abc', '{a,b', 'v[z-a]', 'x\\', 'v[]', 'v[!]']) {
      expect(matches(pattern, pattern, RULE_NAME)).toBe(true);
      expect(matches(pattern, pattern)).toBe(false);
    }
    expect(matches('[abc', 'a', RULE_NAME)).toBe(false);
  });

  it('compiles a pattern once per options', () => {
    expect(globMatcher('a/*')).toBe(globMatcher('a/*', {}));
    expect(globMatcher('a/*', FILE_PATTERN)).not.toBe(globMatcher('a/*'));
  });
});
