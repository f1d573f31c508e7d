import { PatternSyntaxError } from './glob';
import { isTagRegexPattern, tagPatternMatcher } from './tag-pattern';

const matches = (pattern: string, name: string) => tagPatternMatcher(pattern)(name);

describe('tagPatternMatcher', () => {
  it('reads /…/ as a regular expression and anything else as a glob', () => {
    expect(isTagRegexPattern('/v.*/')).toBe(true);
    expect(isTagRegexPattern('//')).toBe(true);
    expect(isTagRegexPattern('/')).toBe(false);
    expect(isTagRegexPattern('v/*')).toBe(false);
  });

  it('matches globs as Gitea documents them, without separators and case-sensitively', () => {
    expect(matches('v*', 'v')).toBe(true);
    expect(matches('v*', 'version2')).toBe(true);
    expect(matches('v*', 'release/v1')).toBe(false);
    expect(matches('*', 'release/v1/x')).toBe(true);
    expect(matches('v?', 'v/')).toBe(true);
    expect(matches('v[0-9]', 'v7')).toBe(true);
    expect(matches('v[0-9]', 'v10')).toBe(false);
    expect(matches('*-release', '2.1-release')).toBe(true);
    expect(matches('{v,rel}-*', 'rel-x')).toBe(true);
    expect(matches('{v,rel}-*', 'x-1')).toBe(false);
    expect(matches('gitea', 'gitea')).toBe(true);
    expect(matches('gitea', 'Gitea')).toBe(false);
    expect(matches('', '')).toBe(true);
  });

  it('searches regular expressions anywhere in the name, in Go syntax', () => {
    expect(matches('/\\Av/', 'version2')).toBe(true);
    expect(matches('/\\Av/', 'xv')).toBe(false);
    expect(matches('/v/', 'xv')).toBe(true);
    expect(matches('/^v[0-9]+\\.[0-9]+$/', 'v1.20')).toBe(true);
    expect(matches('/^v[0-9]+\\.[0-9]+$/', 'v1.20-rc')).toBe(false);
    expect(matches('/(?i)^REL/', 'release')).toBe(true);
    expect(matches('/\\pL+\\z/', 'é')).toBe(true);
    expect(matches('//', 'anything')).toBe(true);
  });

  it('refuses patterns that do not compile', () => {
    for (const pattern of ['v[', '{a,b', '[z-a]', 'x\\', '/(/', '/(?<=x)a/', '/a{1001}/', '/\\pL{1000}/']) {
      expect(() => tagPatternMatcher(pattern)).toThrow(PatternSyntaxError);
    }
    // RE2's heap survives a refused compile.
    expect(matches('/^ok$/', 'ok')).toBe(true);
  });

  it('keeps matching after its compiled expressions were evicted', () => {
    const first = tagPatternMatcher('/^first$/');
    for (let i = 0; i < 200; i++) expect(matches(`/^v${i}$/`, `v${i}`)).toBe(true);
    expect(first('first')).toBe(true);
    expect(first('second')).toBe(false);
  });
});
