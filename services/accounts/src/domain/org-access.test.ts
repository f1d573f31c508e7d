import {
  MUST_BE_MEMBER,
  MUST_BE_OWNER,
  MUST_BE_TEAM_MEMBER,
  canCreateOrganization,
  decideOrgAction,
  decideTeamAction,
  memberListScope,
  teamMemberUsers,
  membershipQuestion,
  orgPermissions,
  teamSearchMemberId,
  type Decision,
  type OrgAction,
  type TeamAction,
} from './org-access';
import { AccessMode } from './team-units';
import type { Visibility } from './visibility';
import { ANONYMOUS, type Viewer } from './visibility-rules';

const plain: Viewer = { id: 2, isAdmin: false, isRestricted: false };
const restricted: Viewer = { id: 3, isAdmin: false, isRestricted: true };
const admin: Viewer = { id: 4, isAdmin: true, isRestricted: false };

/** Who asks, and their standing: [viewer, isMember, isOwner, isTeamMember]. */
const WHO: Record<string, [Viewer, boolean, boolean, boolean]> = {
  anonymous: [ANONYMOUS, false, false, false],
  plain: [plain, false, false, false],
  restricted: [restricted, false, false, false],
  'other-team member': [plain, true, false, false],
  'team member': [plain, true, false, true],
  'restricted team member': [restricted, true, false, true],
  owner: [plain, true, true, true],
  admin: [admin, false, false, false],
};
const VISIBILITIES: Visibility[] = ['public', 'limited', 'private'];

/** A decision as one letter: A allowed, N not found, D denied (with the message checked apart). */
function letter(decision: Decision): string {
  if (decision.allowed) return 'A';
  return decision.outcome === 'not_found' ? 'N' : 'D';
}

// Each row: the letters for public, limited, private.
const ORG_MATRIX: Record<OrgAction, Record<string, string>> = {
  view: {
    anonymous: 'ANN',
    plain: 'AAN',
    restricted: 'NNN',
    'other-team member': 'AAA',
    'team member': 'AAA',
    'restricted team member': 'AAA',
    owner: 'AAA',
    admin: 'AAA',
  },
  manage: {
    anonymous: 'DNN',
    plain: 'DDN',
    restricted: 'NNN',
    'other-team member': 'DDD',
    'team member': 'DDD',
    'restricted team member': 'DDD',
    owner: 'AAA',
    admin: 'AAA',
  },
  read_teams: {
    anonymous: 'DNN',
    plain: 'DDN',
    restricted: 'NNN',
    'other-team member': 'AAA',
    'team member': 'AAA',
    'restricted team member': 'AAA',
    owner: 'AAA',
    admin: 'AAA',
  },
  // Someone else's membership.
  publicize_member: {
    anonymous: 'DNN',
    plain: 'DDN',
    restricted: 'NNN',
    'other-team member': 'DDD',
    'team member': 'DDD',
    'restricted team member': 'DDD',
    owner: 'AAA',
    admin: 'AAA',
  },
  conceal_member: {
    anonymous: 'DNN',
    plain: 'DDN',
    restricted: 'NNN',
    'other-team member': 'DDD',
    'team member': 'DDD',
    'restricted team member': 'DDD',
    owner: 'AAA',
    admin: 'AAA',
  },
};

describe('decideOrgAction matrix', () => {
  for (const [action, rows] of Object.entries(ORG_MATRIX) as Array<[OrgAction, Record<string, string>]>) {
    it.each(Object.entries(rows))(`${action}: %s`, (who, expected) => {
      const [viewer, isMember, isOwner] = WHO[who];
      const got = VISIBILITIES.map((visibility) => letter(decideOrgAction(viewer, action, { visibility, isMember, isOwner }))).join('');
      expect(got).toBe(expected);
    });
  }

  it('names what is missing', () => {
    const publicOrg = { visibility: 'public' as const, isMember: false, isOwner: false };
    expect(decideOrgAction(plain, 'manage', publicOrg)).toEqual({ allowed: false, outcome: 'denied', message: MUST_BE_OWNER });
    expect(decideOrgAction(plain, 'read_teams', publicOrg)).toEqual({ allowed: false, outcome: 'denied', message: MUST_BE_MEMBER });
    const member = { ...publicOrg, isMember: true };
    expect(decideOrgAction(plain, 'publicize_member', member)).toMatchObject({ message: 'Cannot publicize another member' });
    expect(decideOrgAction(plain, 'conceal_member', member)).toMatchObject({ message: 'Cannot conceal another member' });
  });

  it('lets every member change their own membership visibility, and no one else', () => {
    const org = (isMember: boolean) => ({ visibility: 'private' as const, isMember, isOwner: false });
    expect(decideOrgAction(plain, 'publicize_member', org(true), true)).toEqual({ allowed: true });
    expect(decideOrgAction(restricted, 'conceal_member', org(true), true)).toEqual({ allowed: true });
    expect(decideOrgAction(plain, 'publicize_member', { ...org(false), visibility: 'public' }, true)).toMatchObject({ message: MUST_BE_MEMBER });
  });
});

const TEAM_MATRIX: Record<TeamAction, Record<string, string>> = {
  view: {
    anonymous: 'NNN',
    plain: 'NNN',
    restricted: 'NNN',
    'other-team member': 'DDD',
    'team member': 'AAA',
    'restricted team member': 'AAA',
    owner: 'AAA',
    admin: 'AAA',
  },
  manage: {
    anonymous: 'NNN',
    plain: 'NNN',
    restricted: 'NNN',
    'other-team member': 'DDD',
    'team member': 'DDD',
    'restricted team member': 'DDD',
    owner: 'AAA',
    admin: 'AAA',
  },
};

describe('decideTeamAction matrix', () => {
  for (const [action, rows] of Object.entries(TEAM_MATRIX) as Array<[TeamAction, Record<string, string>]>) {
    it.each(Object.entries(rows))(`${action}: %s`, (who, expected) => {
      const [viewer, isMember, isOwner, isTeamMember] = WHO[who];
      const got = VISIBILITIES.map((visibility) =>
        letter(decideTeamAction(viewer, action, { visibility, isMember, isOwner, isTeamMember })),
      ).join('');
      expect(got).toBe(expected);
    });
  }

  it('names what is missing', () => {
    const outsider = { visibility: 'public' as const, isMember: true, isOwner: false, isTeamMember: false };
    expect(decideTeamAction(plain, 'view', outsider)).toMatchObject({ message: MUST_BE_TEAM_MEMBER });
    expect(decideTeamAction(plain, 'manage', { ...outsider, isTeamMember: true })).toMatchObject({ message: MUST_BE_OWNER });
  });
});

describe('memberListScope', () => {
  const org = (isMember: boolean) => ({ visibility: 'public' as const, isMember, isOwner: false });

  it('shows members everything, others only public memberships of users they may see', () => {
    expect(memberListScope(plain, org(true), false)).toEqual({ memberships: 'all', users: { kind: 'all' } });
    expect(memberListScope(admin, org(false), false)).toEqual({ memberships: 'all', users: { kind: 'all' } });
    expect(memberListScope(plain, org(false), false)).toEqual({ memberships: 'public', users: { kind: 'signed_in', viewerId: 2 } });
    expect(memberListScope(ANONYMOUS, org(false), false)).toEqual({ memberships: 'public', users: { kind: 'public' } });
    expect(memberListScope(restricted, org(false), false)).toEqual({ memberships: 'public', users: { kind: 'public' } });
  });

  it('lists only public memberships when asked, to members too', () => {
    expect(memberListScope(plain, org(true), true)).toEqual({ memberships: 'public', users: { kind: 'all' } });
  });

  it('shows a restricted member their team mates and the public members', () => {
    expect(memberListScope(restricted, org(true), false)).toEqual({ memberships: 'team_mates_and_public', users: { kind: 'all' } });
  });

  it('shows a public-only token public users only, to members and admins too', () => {
    expect(memberListScope(plain, org(true), false, true)).toEqual({ memberships: 'all', users: { kind: 'public' } });
    expect(memberListScope(admin, org(false), false, true)).toEqual({ memberships: 'all', users: { kind: 'public' } });
    expect(memberListScope(plain, org(false), true, true)).toEqual({ memberships: 'public', users: { kind: 'public' } });
  });
});

describe('teamMemberUsers', () => {
  it('shows every member, or public users only to a public-only token', () => {
    expect(teamMemberUsers(false)).toEqual({ kind: 'all' });
    expect(teamMemberUsers(true)).toEqual({ kind: 'public' });
  });
});

describe('membershipQuestion', () => {
  const org = (isMember: boolean) => ({ visibility: 'public' as const, isMember, isOwner: false });
  it('answers fully to members and admins, sends others to the public check', () => {
    expect(membershipQuestion(plain, org(true), false)).toBe('full');
    expect(membershipQuestion(admin, org(false), false)).toBe('full');
    expect(membershipQuestion(plain, org(false), true)).toBe('not_member');
    expect(membershipQuestion(plain, org(false), false)).toBe('public_only');
    expect(membershipQuestion(ANONYMOUS, org(false), false)).toBe('public_only');
  });
});

describe('other rules', () => {
  it('searches every team for admins, the own teams for others', () => {
    expect(teamSearchMemberId(admin)).toBe(0);
    expect(teamSearchMemberId(plain)).toBe(2);
  });

  it('lets admins and allowed users create organizations', () => {
    expect(canCreateOrganization({ isAdmin: true, allowCreateOrganization: false })).toBe(true);
    expect(canCreateOrganization({ isAdmin: false, allowCreateOrganization: true })).toBe(true);
    expect(canCreateOrganization({ isAdmin: false, allowCreateOrganization: false })).toBe(false);
  });

  it('derives organization permissions from the highest team mode', () => {
    expect(orgPermissions(AccessMode.None, false)).toEqual({ canRead: false, canWrite: false, isAdmin: false, isOwner: false, canCreateRepository: false });
    expect(orgPermissions(AccessMode.Read, true)).toEqual({ canRead: true, canWrite: false, isAdmin: false, isOwner: false, canCreateRepository: true });
    expect(orgPermissions(AccessMode.Admin, false)).toMatchObject({ canWrite: true, isAdmin: true, isOwner: false });
    expect(orgPermissions(AccessMode.Owner, true)).toEqual({ canRead: true, canWrite: true, isAdmin: true, isOwner: true, canCreateRepository: true });
  });
});
