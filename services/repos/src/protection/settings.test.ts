import { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { ruleNameAfterEdit, settingsAfterEdit, settingsForCreate } from './settings';

const request = (fields: Partial<BranchProtection>): BranchProtection => BranchProtection.fromPartial(fields);

describe('settingsForCreate', () => {
  it('turns whitelists and force pushing off when pushing is off', () => {
    const settings = settingsForCreate(
      request({ enablePush: false, enablePushWhitelist: true, pushWhitelistDeployKeys: true, enableForcePush: true, enableForcePushAllowlist: true }),
    );
    expect(settings).toMatchObject({
      enablePush: false,
      enablePushWhitelist: false,
      pushWhitelistDeployKeys: false,
      enableForcePush: false,
      enableForcePushAllowlist: false,
      forcePushAllowlistDeployKeys: false,
    });
  });

  it('keeps the switches that depend on each other when they are all on', () => {
    const settings = settingsForCreate(
      request({
        enablePush: true,
        enablePushWhitelist: true,
        pushWhitelistDeployKeys: true,
        enableForcePush: true,
        enableForcePushAllowlist: true,
        forcePushAllowlistDeployKeys: true,
      }),
    );
    expect(settings).toMatchObject({
      enablePushWhitelist: true,
      pushWhitelistDeployKeys: true,
      enableForcePush: true,
      enableForcePushAllowlist: true,
      forcePushAllowlistDeployKeys: true,
    });
  });

  it('never stores negative required approvals and copies the rest', () => {
    const settings = settingsForCreate(
      request({ requiredApprovals: -3, requireSignedCommits: true, protectedFilePatterns: '*.lock', statusCheckContexts: ['ci'], priority: 7 }),
    );
    expect(settings).toMatchObject({ requiredApprovals: 0, requireSignedCommits: true, protectedFilePatterns: '*.lock', statusCheckContexts: ['ci'], priority: 7 });
  });
});

describe('settingsAfterEdit', () => {
  const current = settingsForCreate(
    request({
      enablePush: true,
      enablePushWhitelist: true,
      pushWhitelistDeployKeys: true,
      enableForcePush: true,
      enableForcePushAllowlist: true,
      requiredApprovals: 2,
      statusCheckContexts: ['ci'],
      priority: 3,
    }),
  );

  it('changes nothing without fields', () => {
    expect(settingsAfterEdit(current, request({ requiredApprovals: 9, enablePush: false }), new Set())).toEqual(current);
  });

  it('copies the fields that are named', () => {
    const next = settingsAfterEdit(
      current,
      request({ requireSignedCommits: true, statusCheckContexts: [], priority: 1, protectedFilePatterns: 'a' }),
      new Set(['require_signed_commits', 'status_check_contexts', 'priority']),
    );
    expect(next).toMatchObject({ requireSignedCommits: true, statusCheckContexts: [], priority: 1, protectedFilePatterns: '' });
  });

  it('turning pushing off turns the whitelist off', () => {
    const next = settingsAfterEdit(current, request({ enablePush: false }), new Set(['enable_push']));
    expect(next).toMatchObject({ enablePush: false, enablePushWhitelist: false, pushWhitelistDeployKeys: false, enableForcePush: true });
  });

  it('reads the whitelist switch only together with enable_push', () => {
    expect(settingsAfterEdit(current, request({ enablePushWhitelist: false }), new Set(['enable_push_whitelist']))).toMatchObject({
      enablePushWhitelist: true,
    });
    expect(
      settingsAfterEdit(current, request({ enablePush: true, enablePushWhitelist: false }), new Set(['enable_push', 'enable_push_whitelist'])),
    ).toMatchObject({ enablePush: true, enablePushWhitelist: false, pushWhitelistDeployKeys: false });
  });

  it('turning force pushing off turns its allow list off', () => {
    const next = settingsAfterEdit(current, request({ enableForcePush: false }), new Set(['enable_force_push']));
    expect(next).toMatchObject({ enableForcePush: false, enableForcePushAllowlist: false, forcePushAllowlistDeployKeys: false });
  });

  it('ignores negative required approvals', () => {
    expect(settingsAfterEdit(current, request({ requiredApprovals: -1 }), new Set(['required_approvals'])).requiredApprovals).toBe(2);
    expect(settingsAfterEdit(current, request({ requiredApprovals: 0 }), new Set(['required_approvals'])).requiredApprovals).toBe(0);
  });
});

describe('ruleNameAfterEdit', () => {
  it('keeps the name unless the edit names rule_name', () => {
    expect(ruleNameAfterEdit('main', request({ ruleName: 'trunk' }), new Set(['priority']))).toBe('main');
    expect(ruleNameAfterEdit('main', request({ ruleName: 'trunk' }), new Set(['rule_name']))).toBe('trunk');
  });

  it('refuses an empty new name', () => {
    expect(() => ruleNameAfterEdit('main', request({ ruleName: '' }), new Set(['rule_name']))).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'rule_name_empty' }),
    );
  });
});
