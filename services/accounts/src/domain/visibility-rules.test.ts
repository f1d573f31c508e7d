import {
  ANONYMOUS,
  canSeeAccountDetails,
  canSeeEmail,
  canSeeOrg,
  canSeeOrgEmail,
  canSeeUser,
  isOrgInListScope,
  isUserInListScope,
  isUserOrgInScope,
  orgListScope,
  placeholderEmail,
  userListScope,
  userOrgsScope,
  viewerFromActor,
  type Viewer,
} from './visibility-rules';
import type { Visibility } from './visibility';

const TARGET_ID = 50;
const viewers: Record<string, Viewer> = {
  anonymous: ANONYMOUS,
  plain: { id: 2, isAdmin: false, isRestricted: false },
  restricted: { id: 3, isAdmin: false, isRestricted: true },
  admin: { id: 4, isAdmin: true, isRestricted: false },
  self: { id: TARGET_ID, isAdmin: false, isRestricted: false },
};

describe('viewerFromActor', () => {
  it('reads an actor, and treats none or id 0 as anonymous', () => {
    expect(viewerFromActor(undefined)).toEqual(ANONYMOUS);
    expect(viewerFromActor({ userId: 0, isAdmin: true, isRestricted: false })).toEqual(ANONYMOUS);
    expect(viewerFromActor({ userId: 9, isAdmin: true, isRestricted: true })).toEqual({ id: 9, isAdmin: true, isRestricted: true });
  });
});

describe('canSeeUser (lookup)', () => {
  // viewer → [public, limited, private without a shared org, private with a shared org]
  const matrix: Record<string, [boolean, boolean, boolean, boolean]> = {
    anonymous: [true, false, false, false],
    plain: [true, true, false, true],
    restricted: [true, false, false, false],
    admin: [true, true, true, true],
    self: [true, true, true, true],
  };
  it.each(Object.entries(matrix))('%s', (name, expected) => {
    const viewer = viewers[name];
    const got = [
      canSeeUser(viewer, { id: TARGET_ID, visibility: 'public' }),
      canSeeUser(viewer, { id: TARGET_ID, visibility: 'limited' }),
      canSeeUser(viewer, { id: TARGET_ID, visibility: 'private' }),
      canSeeUser(viewer, { id: TARGET_ID, visibility: 'private' }, { sharesOrg: true }),
    ];
    expect(got).toEqual(expected);
  });
});

describe('userListScope (search and lists)', () => {
  const matrix: Record<string, [boolean, boolean, boolean, boolean]> = {
    anonymous: [true, false, false, false],
    plain: [true, true, false, true],
    restricted: [true, false, false, false],
    admin: [true, true, true, true],
    self: [true, true, true, true],
  };
  it.each(Object.entries(matrix))('%s', (name, expected) => {
    const scope = userListScope(viewers[name]);
    const got = [
      isUserInListScope(scope, { id: TARGET_ID, visibility: 'public' }),
      isUserInListScope(scope, { id: TARGET_ID, visibility: 'limited' }),
      isUserInListScope(scope, { id: TARGET_ID, visibility: 'private' }),
      isUserInListScope(scope, { id: TARGET_ID, visibility: 'private' }, { sharesOrg: true }),
    ];
    expect(got).toEqual(expected);
  });

  it('gives the SQL scopes', () => {
    expect(userListScope(ANONYMOUS)).toEqual({ kind: 'public' });
    expect(userListScope(viewers.restricted)).toEqual({ kind: 'public' });
    expect(userListScope(viewers.plain)).toEqual({ kind: 'signed_in', viewerId: 2 });
    expect(userListScope(viewers.admin)).toEqual({ kind: 'all' });
    expect(userListScope({ id: 8, isAdmin: true, isRestricted: true })).toEqual({ kind: 'all' });
  });
});

describe('e-mail and account details', () => {
  it('shows the e-mail to signed-in viewers unless hidden; self and admins always', () => {
    const open = { id: TARGET_ID, keepEmailPrivate: false };
    const hidden = { id: TARGET_ID, keepEmailPrivate: true };
    expect(canSeeEmail(ANONYMOUS, open)).toBe(false);
    expect(canSeeEmail(viewers.plain, open)).toBe(true);
    expect(canSeeEmail(viewers.restricted, open)).toBe(true);
    expect(canSeeEmail(viewers.plain, hidden)).toBe(false);
    expect(canSeeEmail(viewers.admin, hidden)).toBe(true);
    expect(canSeeEmail(viewers.self, hidden)).toBe(true);
  });

  it('builds the placeholder address', () => {
    expect(placeholderEmail({ id: 7, name: 'Alice' }, 'noreply.localhost')).toBe('7+alice@noreply.localhost');
  });

  it('shows account details to self and admins only', () => {
    expect(canSeeAccountDetails(ANONYMOUS, TARGET_ID)).toBe(false);
    expect(canSeeAccountDetails(viewers.plain, TARGET_ID)).toBe(false);
    expect(canSeeAccountDetails(viewers.self, TARGET_ID)).toBe(true);
    expect(canSeeAccountDetails(viewers.admin, TARGET_ID)).toBe(true);
  });
});

describe('organizations', () => {
  const orgViewers: Record<string, [Viewer, boolean]> = {
    anonymous: [ANONYMOUS, false],
    plain: [viewers.plain, false],
    restricted: [viewers.restricted, false],
    'restricted member': [viewers.restricted, true],
    member: [viewers.plain, true],
    admin: [viewers.admin, false],
  };
  // viewer → [public, limited, private]
  const matrix: Record<string, [boolean, boolean, boolean]> = {
    anonymous: [true, false, false],
    plain: [true, true, false],
    restricted: [false, false, false],
    'restricted member': [true, true, true],
    member: [true, true, true],
    admin: [true, true, true],
  };
  const visibilities: Visibility[] = ['public', 'limited', 'private'];

  it.each(Object.entries(matrix))('lookup: %s', (name, expected) => {
    const [viewer, member] = orgViewers[name];
    expect(visibilities.map((visibility) => canSeeOrg(viewer, { visibility }, member))).toEqual(expected);
  });

  it.each(Object.entries(matrix))('lists follow the lookup rule: %s', (name, expected) => {
    const [viewer, member] = orgViewers[name];
    const scope = orgListScope(viewer);
    expect(visibilities.map((visibility) => isOrgInListScope(scope, { visibility }, member))).toEqual(expected);
  });

  it('gives the SQL scopes', () => {
    expect(orgListScope(ANONYMOUS)).toEqual({ kind: 'filtered', visibilities: ['public'], memberId: 0 });
    expect(orgListScope(viewers.plain)).toEqual({ kind: 'filtered', visibilities: ['public', 'limited'], memberId: 2 });
    expect(orgListScope(viewers.restricted)).toEqual({ kind: 'filtered', visibilities: [], memberId: 3 });
    expect(orgListScope(viewers.admin)).toEqual({ kind: 'all' });
  });

  it('keeps a public-only token to public organizations, an admin’s too', () => {
    for (const viewer of [ANONYMOUS, viewers.plain, viewers.restricted, viewers.admin]) {
      const scope = orgListScope(viewer, true);
      expect(scope).toEqual({ kind: 'filtered', visibilities: ['public'], memberId: 0 });
      expect(visibilities.map((visibility) => isOrgInListScope(scope, { visibility }, true))).toEqual([true, false, false]);
    }
  });

  it('blanks the e-mail for anonymous viewers', () => {
    expect(canSeeOrgEmail(ANONYMOUS)).toBe(false);
    expect(canSeeOrgEmail(viewers.restricted)).toBe(true);
  });
});

describe("a user's organizations", () => {
  const USER_ID = 50;
  const self: Viewer = { id: USER_ID, isAdmin: false, isRestricted: false };
  const plain: Viewer = { id: 2, isAdmin: false, isRestricted: false };
  const restricted: Viewer = { id: 3, isAdmin: false, isRestricted: true };
  const admin: Viewer = { id: 4, isAdmin: true, isRestricted: false };
  const visibilities: Visibility[] = ['public', 'limited', 'private'];

  // viewer → [public, limited, private] org, for a public membership and then a concealed one; the viewer is
  // not a member unless the row says so.
  const matrix: Array<[string, Viewer, boolean, string, string]> = [
    ['anonymous', ANONYMOUS, false, 'YNN', 'NNN'],
    ['plain', plain, false, 'YYN', 'NNN'],
    ['plain fellow member', plain, true, 'YYN', 'NNN'],
    ['restricted', restricted, false, 'NNN', 'NNN'],
    ['restricted fellow member', restricted, true, 'YYN', 'NNN'],
    ['self', self, true, 'YYY', 'YYY'],
    ['admin', admin, false, 'YYY', 'YYY'],
  ];

  it.each(matrix)('%s', (_name, viewer, viewerIsMember, whenPublic, whenConcealed) => {
    const scope = userOrgsScope(viewer, USER_ID);
    const row = (isPublic: boolean) =>
      visibilities.map((visibility) => (isUserOrgInScope(scope, { visibility }, { isPublic, viewerIsMember }) ? 'Y' : 'N')).join('');
    expect([row(true), row(false)]).toEqual([whenPublic, whenConcealed]);
  });

  // With a public-only token: public organizations only, for every viewer.
  const publicOnlyMatrix: Array<[string, Viewer, boolean, string, string]> = [
    ['anonymous', ANONYMOUS, false, 'YNN', 'NNN'],
    ['plain fellow member', plain, true, 'YNN', 'NNN'],
    ['restricted fellow member', restricted, true, 'YNN', 'NNN'],
    ['self', self, true, 'YNN', 'YNN'],
    ['admin', admin, false, 'YNN', 'YNN'],
  ];

  it.each(publicOnlyMatrix)('public-only token: %s', (_name, viewer, viewerIsMember, whenPublic, whenConcealed) => {
    const scope = userOrgsScope(viewer, USER_ID, true);
    const row = (isPublic: boolean) =>
      visibilities.map((visibility) => (isUserOrgInScope(scope, { visibility }, { isPublic, viewerIsMember }) ? 'Y' : 'N')).join('');
    expect([row(true), row(false)]).toEqual([whenPublic, whenConcealed]);
  });
});
