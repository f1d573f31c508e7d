import { Code } from '@cairn/rpc';
import { planUserUpdate, type EditableUser } from './user-update';

const current: EditableUser = {
  email: 'alice@example.com',
  fullName: 'Alice',
  loginName: '',
  sourceId: 0,
  mustChangePassword: false,
  website: '',
  location: '',
  description: '',
  active: true,
  isAdmin: false,
  allowGitHook: false,
  allowImportLocal: false,
  maxRepoCreation: -1,
  prohibitLogin: false,
  allowCreateOrganization: true,
  restricted: false,
  visibility: 'public',
  language: '',
  keepEmailPrivate: false,
  keepActivityPrivate: false,
  theme: '',
  diffViewStyle: '',
  emailNotificationsPreference: 'enabled',
};

describe('planUserUpdate', () => {
  it('keeps only set fields that differ, named as in the proto', () => {
    const plan = planUserUpdate(current, { fullName: 'Alice A.', isAdmin: true, active: true, maxRepoCreation: 5 });
    expect(plan.changes).toEqual({ fullName: 'Alice A.', isAdmin: true, maxRepoCreation: 5 });
    expect(plan.changed).toEqual(['full_name', 'is_admin', 'max_repo_creation']);
  });

  it('changes nothing for an empty request', () => {
    expect(planUserUpdate(current, {})).toEqual({ changes: {}, changed: [] });
  });

  it('takes the profile settings of PATCH /user/settings', () => {
    const plan = planUserUpdate(current, { keepEmailPrivate: true, keepActivityPrivate: false, theme: 'gitea-dark', diffViewStyle: 'split', language: 'de-DE' });
    expect(plan.changes).toEqual({ keepEmailPrivate: true, theme: 'gitea-dark', diffViewStyle: 'split', language: 'de-DE' });
    expect(plan.changed).toEqual(['language', 'keep_email_private', 'theme', 'diff_view_style']);
  });

  it('takes a known e-mail notification preference and refuses others (Gitea\'s four)', () => {
    expect(planUserUpdate(current, { emailNotificationsPreference: 'onmention' })).toEqual({
      changes: { emailNotificationsPreference: 'onmention' },
      changed: ['email_notifications_preference'],
    });
    expect(() => planUserUpdate(current, { emailNotificationsPreference: 'always' })).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'email_notifications_preference_invalid' }),
    );
  });

  it('treats an email in other case as a change', () => {
    expect(planUserUpdate(current, { email: 'Alice@example.com' }).changed).toEqual(['email']);
  });

  it('validates a new email', () => {
    expect(() => planUserUpdate(current, { email: '' })).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'e-mail invalid [email: ]', reason: 'email_invalid' }),
    );
  });

  it('validates visibility and ignores an empty one', () => {
    expect(() => planUserUpdate(current, { visibility: 'hidden' })).toThrow(expect.objectContaining({ reason: 'visibility_invalid' }));
    expect(planUserUpdate(current, { visibility: '' }).changed).toEqual([]);
    expect(planUserUpdate(current, { visibility: 'private' }).changes).toEqual({ visibility: 'private' });
  });
});
