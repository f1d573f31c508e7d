import { isGlobRuleName, ruleNameMatcher } from './rule-name';

function matches(rule: string, branch: string): boolean {
  return ruleNameMatcher(rule)(branch);
}

describe('isGlobRuleName', () => {
  it.each(['main', 'release/v1.0', 'feature-x'])('%s is a plain name', (name) => expect(isGlobRuleName(name)).toBe(false));
  it.each(['release/*', 'v?', '[ab]', '{a,b}', 'a\\b'])('%s is a glob', (name) => expect(isGlobRuleName(name)).toBe(true));
});

describe('ruleNameMatcher', () => {
  it('compares plain names case-insensitively and exactly', () => {
    expect(matches('main', 'main')).toBe(true);
    expect(matches('Main', 'main')).toBe(true);
    expect(matches('main', 'main2')).toBe(false);
    expect(matches('release/v1.0', 'release/v1x0')).toBe(false);
  });

  it('keeps * and ? within a path segment', () => {
    expect(matches('release/*', 'release/v1')).toBe(true);
    expect(matches('release/*', 'release/v1/hotfix')).toBe(false);
    expect(matches('release/*', 'release/')).toBe(true);
    expect(matches('v?', 'v1')).toBe(true);
    expect(matches('v?', 'v/')).toBe(false);
    expect(matches('*', 'feature/x')).toBe(false);
  });

  it('lets ** cross segments', () => {
    expect(matches('release/**', 'release/v1/hotfix')).toBe(true);
    expect(matches('**', 'feature/a/b')).toBe(true);
    expect(matches('**/fix', 'a/b/fix')).toBe(true);
  });

  it('is case-sensitive for globs', () => {
    expect(matches('Release/*', 'release/v1')).toBe(false);
  });

  it('takes dots and other regexp characters literally', () => {
    expect(matches('v1.*', 'v1.2')).toBe(true);
    expect(matches('v1.*', 'v1x2')).toBe(false);
    expect(matches('a+(b)|c*', 'a+(b)|cd')).toBe(true);
    expect(matches('a+*', 'aa')).toBe(false);
  });

  it('supports classes, negated classes and alternatives', () => {
    expect(matches('v[12]', 'v1')).toBe(true);
    expect(matches('v[12]', 'v3')).toBe(false);
    expect(matches('v[!12]', 'v3')).toBe(true);
    expect(matches('v[!12]', 'v1')).toBe(false);
    expect(matches('v[0-9]*', 'v7-beta')).toBe(true);
    expect(matches('{main,develop}', 'develop')).toBe(true);
    expect(matches('{main,develop}', 'feature')).toBe(false);
    expect(matches('release/{v1,v2}/*', 'release/v2/x')).toBe(true);
  });

  it('escapes with a backslash', () => {
    expect(matches('a\\*', 'a*')).toBe(true);
    expect(matches('a\\*', 'ab')).toBe(false);
  });

  it('matches an uncompilable glob only literally', () => {
    expect(matches('[abc', '[abc')).toBe(true);
    expect(matches('[abc', 'a')).toBe(false);
    expect(matches('{a,b', '{a,b')).toBe(true);
    expect(matches('v[z-a]', 'v[z-a]')).toBe(true);
  });
});
