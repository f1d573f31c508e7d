import { rulesListTeams, userCanForcePush, userCanMerge, userCanPush, userIsOfficialReviewer, type EvaluatedRule, type RuleSubject } from './allow-lists';

const NO_LIST = { userIds: [], teamIds: [] };

function rule(fields: Partial<EvaluatedRule> = {}): EvaluatedRule {
  return {
    ruleName: 'main',
    allowLists: { push: NO_LIST, forcePush: NO_LIST, merge: NO_LIST, approvals: NO_LIST },
    enablePush: false,
    enablePushWhitelist: false,
    enableForcePush: false,
    enableForcePushAllowlist: false,
    enableMergeWhitelist: false,
    requireSignedCommits: false,
    protectedFilePatterns: '',
    unprotectedFilePatterns: '',
    ...fields,
  };
}

const writer: RuleSubject = { userId: 1, teamIds: new Set(), canWriteCode: true };
const reader: RuleSubject = { userId: 2, teamIds: new Set([20]), canWriteCode: false };
const teamWriter: RuleSubject = { userId: 3, teamIds: new Set([10]), canWriteCode: true };
const anonymous: RuleSubject = { userId: 0, teamIds: new Set(), canWriteCode: false };

describe('userCanPush', () => {
  it('refuses everyone when pushing is off', () => {
    expect(userCanPush(rule(), writer)).toBe(false);
  });

  it('lets writers push when there is no whitelist', () => {
    expect(userCanPush(rule({ enablePush: true }), writer)).toBe(true);
    expect(userCanPush(rule({ enablePush: true }), reader)).toBe(false);
  });

  it('lets only listed users and teams push with a whitelist, admins not excepted', () => {
    const listed = rule({ enablePush: true, enablePushWhitelist: true, allowLists: { ...rule().allowLists, push: { userIds: [1], teamIds: [10] } } });
    expect(userCanPush(listed, writer)).toBe(true);
    expect(userCanPush(listed, teamWriter)).toBe(true);
    expect(userCanPush(listed, { userId: 4, teamIds: new Set(), canWriteCode: true })).toBe(false);
    expect(userCanPush(listed, anonymous)).toBe(false);
  });

  it('does not count a listed user who may not write the code (Gitea drops them from the list)', () => {
    const listed = rule({ enablePush: true, enablePushWhitelist: true, allowLists: { ...rule().allowLists, push: { userIds: [2], teamIds: [] } } });
    expect(userCanPush(listed, reader)).toBe(false);
  });
});

describe('userCanForcePush', () => {
  it('needs force pushing on and the right to push', () => {
    expect(userCanForcePush(rule({ enablePush: true }), writer)).toBe(false);
    expect(userCanForcePush(rule({ enablePush: true, enableForcePush: true }), writer)).toBe(true);
    expect(userCanForcePush(rule({ enableForcePush: true }), writer)).toBe(false);
  });

  it('honours the force-push allow list on top of the push whitelist', () => {
    const lists = { ...rule().allowLists, push: { userIds: [1, 3], teamIds: [] }, forcePush: { userIds: [], teamIds: [10] } };
    const guarded = rule({ enablePush: true, enablePushWhitelist: true, enableForcePush: true, enableForcePushAllowlist: true, allowLists: lists });
    expect(userCanForcePush(guarded, teamWriter)).toBe(true);
    expect(userCanForcePush(guarded, writer)).toBe(false);
  });
});

describe('userCanMerge', () => {
  it('lets writers merge without a merge whitelist', () => {
    expect(userCanMerge(rule(), writer)).toBe(true);
    expect(userCanMerge(rule(), reader)).toBe(false);
  });

  it('lets listed teams merge with one, even without code write (as Gitea)', () => {
    const lists = { ...rule().allowLists, merge: { userIds: [1], teamIds: [20] } };
    const guarded = rule({ enableMergeWhitelist: true, allowLists: lists });
    expect(userCanMerge(guarded, writer)).toBe(true);
    expect(userCanMerge(guarded, reader)).toBe(true);
    expect(userCanMerge(guarded, teamWriter)).toBe(false);
  });
});

describe('rulesListTeams', () => {
  it('is true when a push, force-push, merge or approvals list names a team', () => {
    expect(rulesListTeams([rule()])).toBe(false);
    expect(rulesListTeams([rule({ allowLists: { ...rule().allowLists, approvals: { userIds: [], teamIds: [1] } } })])).toBe(true);
    expect(rulesListTeams([rule(), rule({ allowLists: { ...rule().allowLists, merge: { userIds: [], teamIds: [1] } } })])).toBe(true);
  });
});

describe('userIsOfficialReviewer', () => {
  it('counts code writers without an approvals list', () => {
    expect(userIsOfficialReviewer({ ...rule(), enableApprovalsWhitelist: false }, writer)).toBe(true);
    expect(userIsOfficialReviewer({ ...rule(), enableApprovalsWhitelist: false }, reader)).toBe(false);
  });

  it('counts only listed users and teams with one, code writers not excepted', () => {
    const listed = { ...rule({ allowLists: { ...rule().allowLists, approvals: { userIds: [2], teamIds: [10] } } }), enableApprovalsWhitelist: true };
    expect(userIsOfficialReviewer(listed, reader)).toBe(true);
    expect(userIsOfficialReviewer(listed, teamWriter)).toBe(true);
    expect(userIsOfficialReviewer(listed, writer)).toBe(false);
    expect(userIsOfficialReviewer(listed, anonymous)).toBe(false);
  });
});
