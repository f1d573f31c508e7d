import { findBranchRule, firstProtectedFile, globToRegExp, ruleMatches } from './branch-rules';

describe('ruleMatches', () => {
  it.each([
    ['main', 'main', true],
    ['main', 'main2', false],
    ['release/*', 'release/1.0', true],
    ['release/*', 'release/1.0/hotfix', false],
    ['release/**', 'release/1.0/hotfix', true],
    ['release/**', 'release', false],
    ['**', 'any/thing', true],
    ['feat-?', 'feat-a', true],
    ['feat-?', 'feat-ab', false],
    ['v1.0', 'v1x0', false],
    ['a+b', 'a+b', true],
    ['(x)', '(x)', true],
    ['[abc]', 'a', false],
  ])('%j vs %j → %j', (rule, branch, expected) => {
    expect(ruleMatches(rule, branch)).toBe(expected);
  });
});

describe('findBranchRule', () => {
  it('answers the first matching rule in the given order', () => {
    const rules = [{ ruleName: 'release/1.0' }, { ruleName: 'release/*' }, { ruleName: '**' }];
    expect(findBranchRule(rules, 'release/1.0')).toBe(rules[0]);
    expect(findBranchRule(rules, 'release/2.0')).toBe(rules[1]);
    expect(findBranchRule(rules, 'main')).toBe(rules[2]);
    expect(findBranchRule([], 'main')).toBeUndefined();
  });
});

describe('firstProtectedFile', () => {
  it('matches `;`-separated patterns case-insensitively, `*` stopping at `/` and `.`', () => {
    expect(firstProtectedFile('docs/*.md;  LICENSE ', ['src/a.ts', 'docs/README.MD'])).toBe('docs/README.MD');
    expect(firstProtectedFile('docs/*.md', ['docs/sub/a.md', 'docs/a.b.md'])).toBeUndefined();
    expect(firstProtectedFile('**/*.lock', ['deep/dir/yarn.lock'])).toBe('deep/dir/yarn.lock');
    expect(firstProtectedFile('license', ['LICENSE'])).toBe('LICENSE');
    expect(firstProtectedFile(' ; ', ['anything'])).toBeUndefined();
  });

  it('compiles a glob once per pattern and separators', () => {
    expect(globToRegExp('a/*')).toBe(globToRegExp('a/*'));
    expect(globToRegExp('a/*', './')).not.toBe(globToRegExp('a/*'));
  });
});
