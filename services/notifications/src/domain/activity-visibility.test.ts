import { ALL_REPOS, canSeeActivity, isEmptyScope, seesEveryRepository } from './activity-visibility';
import { ANONYMOUS, type Viewer } from './viewer';

const OWNER_ID = 7;
const viewers: Record<string, Viewer> = {
  anonymous: ANONYMOUS,
  self: { id: OWNER_ID, isAdmin: false, isRestricted: false },
  'restricted self': { id: OWNER_ID, isAdmin: false, isRestricted: true },
  'signed-in user': { id: 8, isAdmin: false, isRestricted: false },
  'restricted user': { id: 9, isAdmin: false, isRestricted: true },
  'site admin': { id: 10, isAdmin: true, isRestricted: false },
};

describe('canSeeActivity (Gitea ActivityReadable)', () => {
  // viewer → [activity public, activity kept private]
  const matrix: Record<string, [boolean, boolean]> = {
    anonymous: [true, false],
    self: [true, true],
    'restricted self': [true, true],
    'signed-in user': [true, false],
    'restricted user': [true, false],
    'site admin': [true, true],
  };

  it.each(Object.entries(matrix))('%s: public activity %p, private activity %p', (name, [whenPublic, whenPrivate]) => {
    const viewer = viewers[name];
    expect(canSeeActivity(viewer, { id: OWNER_ID, keepActivityPrivate: false })).toBe(whenPublic);
    expect(canSeeActivity(viewer, { id: OWNER_ID, keepActivityPrivate: true })).toBe(whenPrivate);
  });

  it('does not take an anonymous caller for the user with id 0', () => {
    expect(canSeeActivity(ANONYMOUS, { id: 0, keepActivityPrivate: true })).toBe(false);
  });
});

describe('seesEveryRepository (everyone else, self included, is filtered by repos)', () => {
  it.each(Object.entries(viewers))('%s', (name, viewer) => {
    expect(seesEveryRepository(viewer, false)).toBe(name === 'site admin');
  });

  it('needs a signed-in admin', () => {
    expect(seesEveryRepository({ id: 0, isAdmin: true, isRestricted: false }, false)).toBe(false);
  });

  it('filters a site admin with a public-only token too', () => {
    expect(seesEveryRepository(viewers['site admin'], true)).toBe(false);
  });
});

describe('isEmptyScope', () => {
  it('is true only for a scope that can match no row', () => {
    expect(isEmptyScope({ kind: 'repos', repoIds: [] })).toBe(true);
    expect(isEmptyScope(ALL_REPOS)).toBe(false);
    expect(isEmptyScope({ kind: 'repos', repoIds: [3] })).toBe(false);
  });
});
