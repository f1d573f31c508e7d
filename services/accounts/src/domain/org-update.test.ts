import { Code } from '@cairn/rpc';
import { planOrgUpdate, type OrgProfile } from './org-update';

const current: OrgProfile = {
  fullName: 'Acme',
  email: 'team@acme.test',
  description: '',
  website: '',
  location: 'Earth',
  visibility: 'public',
  repoAdminChangeTeamAccess: false,
};

describe('planOrgUpdate', () => {
  it('keeps only the set fields that differ', () => {
    expect(planOrgUpdate(current, { fullName: 'Acme', location: 'Mars', repoAdminChangeTeamAccess: true })).toEqual({
      changes: { location: 'Mars', repoAdminChangeTeamAccess: true },
      changed: ['location', 'repo_admin_change_team_access'],
    });
  });

  it('ignores an empty visibility and clears the e-mail with an empty one', () => {
    expect(planOrgUpdate(current, { visibility: '', email: '' })).toEqual({ changes: { email: '' }, changed: ['email'] });
  });

  it('refuses an unknown visibility and a bad e-mail', () => {
    expect(() => planOrgUpdate(current, { visibility: 'secret' })).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'visibility_invalid' }));
    expect(() => planOrgUpdate(current, { email: 'not-an-address' })).toThrow(/^e-mail/);
  });
});
