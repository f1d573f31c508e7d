import { BranchRule } from '@cairn/proto/cairn/git/v1/git_service';
import { Code } from '@cairn/rpc';
import { checkProtectedWrite, filePatterns, findBranchRule } from './branch-rules';

describe('findBranchRule', () => {
  it('answers the first matching rule in the given order', () => {
    const rules = [{ ruleName: 'release/1.0' }, { ruleName: 'release/*' }, { ruleName: '**' }];
    expect(findBranchRule(rules, 'release/1.0')).toBe(rules[0]);
    expect(findBranchRule(rules, 'release/2.0')).toBe(rules[1]);
    expect(findBranchRule(rules, 'main')).toBe(rules[2]);
    expect(findBranchRule([], 'main')).toBeUndefined();
  });

  it('matches plain names in any case, globs within segments, and invalid globs literally (as repos does)', () => {
    expect(findBranchRule([{ ruleName: 'Main' }], 'main')).toBeDefined();
    expect(findBranchRule([{ ruleName: 'release/*' }], 'release/1.0/hotfix')).toBeUndefined();
    expect(findBranchRule([{ ruleName: 'v[12]' }], 'v2')).toBeDefined();
    expect(findBranchRule([{ ruleName: '[abc' }], '[abc')).toBeDefined();
  });
});

describe('filePatterns', () => {
  it('matches `;`-separated patterns case-insensitively, `*` stopping at `/` and `.`', () => {
    const matches = filePatterns('docs/*.md;  LICENSE ; **/*.lock');
    expect(matches('docs/README.MD')).toBe(true);
    expect(matches('license')).toBe(true);
    expect(matches('deep/dir/yarn.lock')).toBe(true);
    expect(matches('docs/sub/a.md')).toBe(false);
    expect(matches('docs/a.b.md')).toBe(false);
    expect(matches('src/a.ts')).toBe(false);
  });

  it('matches nothing without patterns, and skips patterns that do not compile', () => {
    expect(filePatterns(' ; ')('anything')).toBe(false);
    expect(filePatterns('[abc;x.txt')('[abc')).toBe(false);
    expect(filePatterns('[abc;x.txt')('x.txt')).toBe(true);
  });
});

describe('checkProtectedWrite', () => {
  const rule = (fields: Partial<BranchRule>) => BranchRule.fromPartial({ ruleName: 'main', canPush: true, ...fields });
  const refusal = (check: () => void) => {
    try {
      check();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('lets anything through on an unprotected branch', () => {
    expect(() => checkProtectedWrite(undefined, ['a.txt'], 'Alice')).not.toThrow();
  });

  it('refuses writers the rule does not let push, except for unprotected files', () => {
    expect(refusal(() => checkProtectedWrite(rule({ canPush: false }), ['a.txt'], 'Alice'))).toMatchObject({
      code: Code.PERMISSION_DENIED,
      reason: 'user_cannot_commit',
      message: 'user cannot commit to repo [user: alice]',
    });
    const unprotected = rule({ canPush: false, unprotectedFilePatterns: 'docs/**;*.md' });
    expect(() => checkProtectedWrite(unprotected, ['docs/x/y.txt', 'README.MD'], 'Alice')).not.toThrow();
    expect(() => checkProtectedWrite(unprotected, ['docs/a.txt', 'src/a.ts'], 'Alice')).toThrow('user cannot commit to repo [user: alice]');
  });

  it('refuses protected files with their path', () => {
    const patterns = rule({ protectedFilePatterns: 'secret/*.txt; **/*.key' });
    expect(refusal(() => checkProtectedWrite(patterns, ['secret/a.txt'], 'alice'))).toMatchObject({
      code: Code.PERMISSION_DENIED,
      reason: 'file_protected',
      message: 'path is protected and can not be changed [path: secret/a.txt]',
    });
    expect(() => checkProtectedWrite(patterns, ['deep/dir/x.key'], 'alice')).toThrow('[path: deep/dir/x.key]');
    expect(() => checkProtectedWrite(patterns, ['secret/sub/a.txt', 'secret/a.txt.bak'], 'alice')).not.toThrow();
  });

  it('refuses every write to a branch that requires signed commits', () => {
    expect(() => checkProtectedWrite(rule({ requireSignedCommits: true }), ['a.txt'], 'alice')).toThrow('user cannot commit to repo [user: alice]');
  });
});
