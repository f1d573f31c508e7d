import { inPriorityOrder, ruleForBranch } from './rule';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

describe('inPriorityOrder', () => {
  it('orders by priority, then plain names before globs, then age, then id', () => {
    const rules = [
      { id: 1, ruleName: 'release/*', priority: 1, created: at(1) },
      { id: 2, ruleName: 'main', priority: 2, created: at(0) },
      { id: 3, ruleName: 'dev', priority: 1, created: at(5) },
      { id: 4, ruleName: 'feature/*', priority: 1, created: at(0) },
      { id: 5, ruleName: 'hotfix', priority: 1, created: at(5) },
    ];
    expect(inPriorityOrder(rules).map((rule) => rule.id)).toEqual([3, 5, 4, 1, 2]);
  });
});

describe('ruleForBranch', () => {
  const ordered = [{ ruleName: 'release/v1' }, { ruleName: 'release/*' }, { ruleName: '**' }];

  it('answers the first rule covering the branch', () => {
    expect(ruleForBranch(ordered, 'release/v1')?.ruleName).toBe('release/v1');
    expect(ruleForBranch(ordered, 'RELEASE/V1')?.ruleName).toBe('release/v1');
    expect(ruleForBranch(ordered, 'release/v2')?.ruleName).toBe('release/*');
    expect(ruleForBranch(ordered, 'feature/x/y')?.ruleName).toBe('**');
  });

  it('takes a name that is not a valid glob literally, and globs case-sensitively', () => {
    expect(ruleForBranch([{ ruleName: 'v[z-a]' }], 'v[z-a]')?.ruleName).toBe('v[z-a]');
    expect(ruleForBranch([{ ruleName: 'v[z-a]' }], 'vz')).toBeUndefined();
    expect(ruleForBranch([{ ruleName: 'Release/*' }], 'release/v1')).toBeUndefined();
  });

  it('answers nothing for an unprotected branch', () => {
    expect(ruleForBranch(ordered.slice(0, 2), 'main')).toBeUndefined();
  });
});
