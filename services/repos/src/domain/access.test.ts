import {
  ANONYMOUS,
  AccessMode,
  NO_RELATION,
  OWNER_ORG,
  OWNER_USER,
  canRead,
  decidePermission,
  isPublicObject,
  ownerVisible,
  teamsReaching,
  type RepoAccessFacts,
  type TeamGrant,
  type Viewer,
} from './access';

const UNITS = ['repo.code', 'repo.issues', 'repo.pulls'];
const OWNER = 10;
const ORG = 20;

function repo(fields: Partial<RepoAccessFacts> = {}): RepoAccessFacts {
  return { ownerId: OWNER, ownerType: OWNER_USER, ownerVisibility: 'public', isPrivate: false, units: UNITS, ...fields };
}

const plain: Viewer = { id: 1, isAdmin: false, isRestricted: false };
const restricted: Viewer = { id: 2, isAdmin: false, isRestricted: true };
const admin: Viewer = { id: 3, isAdmin: true, isRestricted: false };
const owner: Viewer = { id: OWNER, isAdmin: false, isRestricted: false };

function team(fields: Partial<TeamGrant>): TeamGrant {
  return { teamId: 100, orgId: ORG, mode: AccessMode.None, includesAllRepositories: false, canCreateOrgRepo: false, unitModes: {}, ...fields };
}

describe('decidePermission', () => {
  it('gives site admins and the owner everything, on every unit', () => {
    for (const viewer of [admin, owner]) {
      const permission = decidePermission(viewer, repo({ isPrivate: true, ownerVisibility: 'private' }), NO_RELATION);
      expect(permission.mode).toBe(AccessMode.Owner);
      expect(permission.units).toEqual({ 'repo.code': AccessMode.Owner, 'repo.issues': AccessMode.Owner, 'repo.pulls': AccessMode.Owner });
    }
  });

  it('lets anonymous callers read public repositories of public owners only', () => {
    expect(decidePermission(ANONYMOUS, repo(), NO_RELATION).mode).toBe(AccessMode.Read);
    expect(canRead(decidePermission(ANONYMOUS, repo({ isPrivate: true }), NO_RELATION))).toBe(false);
    expect(canRead(decidePermission(ANONYMOUS, repo({ ownerVisibility: 'limited' }), NO_RELATION))).toBe(false);
    expect(canRead(decidePermission(ANONYMOUS, repo({ ownerVisibility: 'private' }), NO_RELATION))).toBe(false);
  });

  it('lets signed-in users read public repositories of public and limited owners, not of private ones', () => {
    expect(decidePermission(plain, repo({ ownerVisibility: 'limited' }), NO_RELATION).mode).toBe(AccessMode.Read);
    expect(canRead(decidePermission(plain, repo({ ownerVisibility: 'private' }), NO_RELATION))).toBe(false);
    expect(canRead(decidePermission(plain, repo({ isPrivate: true }), NO_RELATION))).toBe(false);
  });

  it('gives restricted users no implicit read, but what they were given', () => {
    expect(canRead(decidePermission(restricted, repo(), NO_RELATION))).toBe(false);
    const given = decidePermission(restricted, repo(), { ...NO_RELATION, collaboration: AccessMode.Write });
    expect(given.mode).toBe(AccessMode.Write);
  });

  it('gives collaborators their mode on every unit, even under a private owner', () => {
    const permission = decidePermission(plain, repo({ isPrivate: true, ownerVisibility: 'private' }), { ...NO_RELATION, collaboration: AccessMode.Admin });
    expect(permission).toEqual({ mode: AccessMode.Admin, units: { 'repo.code': AccessMode.Admin, 'repo.issues': AccessMode.Admin, 'repo.pulls': AccessMode.Admin } });
  });

  it('makes members of an admin team (or the Owners team) owners of the repository', () => {
    const orgRepo = repo({ ownerId: ORG, ownerType: OWNER_ORG, isPrivate: true });
    const permission = decidePermission(plain, orgRepo, { ...NO_RELATION, orgMember: true, teams: [team({ mode: AccessMode.Admin })] });
    expect(permission.mode).toBe(AccessMode.Owner);
  });

  it('gives unit teams their unit modes, the repository none overall, and nothing on units they lack', () => {
    const orgRepo = repo({ ownerId: ORG, ownerType: OWNER_ORG, isPrivate: true });
    const writers = team({ unitModes: { 'repo.code': AccessMode.Write, 'repo.wiki': AccessMode.Admin } });
    const permission = decidePermission(plain, orgRepo, { ...NO_RELATION, orgMember: true, teams: [writers] });
    expect(permission).toEqual({ mode: AccessMode.None, units: { 'repo.code': AccessMode.Write, 'repo.issues': AccessMode.None, 'repo.pulls': AccessMode.None } });
    expect(canRead(permission)).toBe(true);
  });

  it('keeps implicit read on the other units of a public organization repository', () => {
    const orgRepo = repo({ ownerId: ORG, ownerType: OWNER_ORG });
    const readers = team({ unitModes: { 'repo.issues': AccessMode.Write } });
    const permission = decidePermission(plain, orgRepo, { ...NO_RELATION, orgMember: true, teams: [readers] });
    expect(permission.units).toEqual({ 'repo.code': AccessMode.Read, 'repo.issues': AccessMode.Write, 'repo.pulls': AccessMode.Read });
  });

  it('lets members of a private organization read its public repositories, and nobody else', () => {
    const orgRepo = repo({ ownerId: ORG, ownerType: OWNER_ORG, ownerVisibility: 'private' });
    expect(canRead(decidePermission(plain, orgRepo, NO_RELATION))).toBe(false);
    expect(decidePermission(plain, orgRepo, { ...NO_RELATION, orgMember: true }).mode).toBe(AccessMode.Read);
  });
});

describe('teamsReaching', () => {
  it('keeps teams of the owner that include all repositories, own them, or are linked', () => {
    const teams = [
      team({ teamId: 1, includesAllRepositories: true }),
      team({ teamId: 2, mode: AccessMode.Owner }),
      team({ teamId: 3 }),
      team({ teamId: 4 }),
      team({ teamId: 5, orgId: 99, includesAllRepositories: true }),
    ];
    expect(teamsReaching(teams, ORG, new Set([4])).map((found) => found.teamId)).toEqual([1, 2, 4]);
  });
});

describe('isPublicObject (all a public-only token sees)', () => {
  it('is a public repository of a public owner', () => {
    expect(isPublicObject(repo({ isPrivate: false, ownerVisibility: 'public' }))).toBe(true);
    expect(isPublicObject(repo({ isPrivate: true, ownerVisibility: 'public' }))).toBe(false);
    expect(isPublicObject(repo({ isPrivate: false, ownerVisibility: 'limited' }))).toBe(false);
    expect(isPublicObject(repo({ isPrivate: false, ownerVisibility: 'private' }))).toBe(false);
  });
});

describe('ownerVisible', () => {
  it('hides limited owners from restricted non-members and private ones from non-members', () => {
    expect(ownerVisible(restricted, repo({ ownerVisibility: 'limited' }), false)).toBe(false);
    expect(ownerVisible(restricted, repo({ ownerVisibility: 'limited' }), true)).toBe(true);
    expect(ownerVisible(plain, repo({ ownerVisibility: 'private' }), false)).toBe(false);
    expect(ownerVisible(restricted, repo({ ownerVisibility: 'public' }), false)).toBe(true);
  });
});
