import { ruleAllows, tagControl, type TagSubject } from './tag-rules';

const subject = (userId: number, teamIds: number[] = []): TagSubject => ({ userId, teamIds: new Set(teamIds) });
const rule = (namePattern: string, userIds: number[], teamIds: number[] = []) => ({ namePattern, allowList: { userIds, teamIds } });

describe('ruleAllows', () => {
  it('allows users on the list and members of listed teams, nobody else', () => {
    expect(ruleAllows(rule('*', [7]), subject(7))).toBe(true);
    expect(ruleAllows(rule('*', [], [3]), subject(8, [3]))).toBe(true);
    expect(ruleAllows(rule('*', [7], [3]), subject(8, [4]))).toBe(false);
    expect(ruleAllows(rule('*', [0]), subject(0))).toBe(false);
  });
});

describe('tagControl', () => {
  const rules = [rule('v*', [1]), rule('/^v2\\./', [2]), rule('release/*', [], [9])];

  it('leaves a tag no rule matches to anyone', () => {
    expect(tagControl(rules, 'nightly', subject(5))).toEqual({ protected: false, allowed: true });
    expect(tagControl([], 'v1', subject(5))).toEqual({ protected: false, allowed: true });
  });

  it('allows a matching tag when any one of the rules it matches allows the user', () => {
    expect(tagControl(rules, 'v1', subject(1))).toEqual({ protected: true, allowed: true });
    expect(tagControl(rules, 'v1', subject(2))).toEqual({ protected: true, allowed: false });
    expect(tagControl(rules, 'v2.0', subject(2))).toEqual({ protected: true, allowed: true });
    expect(tagControl(rules, 'v2.0', subject(1))).toEqual({ protected: true, allowed: true });
    expect(tagControl(rules, 'release/1', subject(5, [9]))).toEqual({ protected: true, allowed: true });
    expect(tagControl(rules, 'release/1', subject(1))).toEqual({ protected: true, allowed: false });
  });
});
