import { Code } from '@cairn/rpc';
import {
  ACTIONS_USER,
  BY_NAME,
  GHOST_USER,
  containsPattern,
  emailMatchScope,
  listedVisibilities,
  pageWindow,
  parseUserOrder,
  parseVisibilityFilter,
  pseudoUserFor,
} from './user-search';
import { userForViewer } from './user-view';
import { ANONYMOUS, canSeeEmail, type Viewer } from './visibility-rules';

describe('containsPattern', () => {
  it('matches anywhere, lower-cased', () => {
    expect(containsPattern('Ali')).toBe('%ali%');
  });

  it('matches everyone for an empty keyword', () => {
    expect(containsPattern('')).toBeUndefined();
  });

  it('escapes LIKE wildcards and the escape character, so they match themselves', () => {
    expect(containsPattern('a_b')).toBe('%a\\_b%');
    expect(containsPattern('100%')).toBe('%100\\%%');
    expect(containsPattern('x\\y')).toBe('%x\\\\y%');
    expect(containsPattern('%_\\')).toBe('%\\%\\_\\\\%');
  });
});

describe('emailMatchScope', () => {
  const viewers: Record<string, Viewer> = {
    anonymous: ANONYMOUS,
    plain: { id: 2, isAdmin: false, isRestricted: false },
    restricted: { id: 3, isAdmin: false, isRestricted: true },
    admin: { id: 4, isAdmin: true, isRestricted: false },
  };

  it('gives the SQL scopes', () => {
    expect(emailMatchScope(viewers.anonymous)).toEqual({ kind: 'none' });
    expect(emailMatchScope(viewers.plain)).toEqual({ kind: 'unhidden_or_self', viewerId: 2 });
    expect(emailMatchScope(viewers.restricted)).toEqual({ kind: 'unhidden_or_self', viewerId: 3 });
    expect(emailMatchScope(viewers.admin)).toEqual({ kind: 'all' });
  });

  it.each(Object.keys(viewers))('matches exactly the addresses %s may read', (name) => {
    const viewer = viewers[name];
    const scope = emailMatchScope(viewer);
    for (const owner of [
      { id: 50, keepEmailPrivate: false },
      { id: 50, keepEmailPrivate: true },
      { id: viewer.id, keepEmailPrivate: true },
    ]) {
      const matchable =
        scope.kind === 'all' || (scope.kind === 'unhidden_or_self' && (!owner.keepEmailPrivate || owner.id === scope.viewerId));
      expect({ owner, matchable }).toEqual({ owner, matchable: canSeeEmail(viewer, owner) });
    }
  });
});

describe('parseUserOrder', () => {
  it('is by name without a sort, whatever the order', () => {
    expect(parseUserOrder('', '')).toEqual(BY_NAME);
    expect(parseUserOrder('', 'desc')).toEqual(BY_NAME);
    expect(parseUserOrder('', 'sideways')).toEqual(BY_NAME);
  });

  it('reads every sort and order, ascending by default', () => {
    expect(parseUserOrder('created', '')).toEqual({ column: 'created', descending: false });
    expect(parseUserOrder('updated', 'desc')).toEqual({ column: 'updated', descending: true });
    expect(parseUserOrder('id', 'asc')).toEqual({ column: 'id', descending: false });
    expect(parseUserOrder('name', 'desc')).toEqual({ column: 'name', descending: true });
  });

  it.each([
    ['email', 'asc'],
    ['name', 'up'],
    ['Name', ''],
  ])("refuses sort %j order %j with Gitea's message", (sort, order) => {
    expect(() => parseUserOrder(sort, order)).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'Invalid sort and order parameters', reason: 'sort_invalid' }),
    );
  });
});

describe('parseVisibilityFilter', () => {
  it('reads the three names, empty for any', () => {
    expect(parseVisibilityFilter('')).toBeUndefined();
    expect(parseVisibilityFilter('limited')).toBe('limited');
  });

  it("refuses anything else with Gitea's message", () => {
    expect(() => parseVisibilityFilter('hidden')).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'Invalid visibility parameter' }),
    );
  });
});

describe('pageWindow', () => {
  it('turns a page into LIMIT/OFFSET; no page or no limit is everything', () => {
    expect(pageWindow({ page: 3, limit: 10 })).toEqual({ limit: 10, offset: 20 });
    expect(pageWindow({ page: 0, limit: 10 })).toEqual({ limit: 10, offset: 0 });
    expect(pageWindow({ page: 2, limit: 0 })).toBeUndefined();
    expect(pageWindow(undefined)).toBeUndefined();
  });
});

describe('pseudo users', () => {
  it('answers uid -1 and -2 only', () => {
    expect(pseudoUserFor(-1)).toBe(GHOST_USER);
    expect(pseudoUserFor(-2)).toBe(ACTIONS_USER);
    expect(pseudoUserFor(0)).toBeUndefined();
    expect(pseudoUserFor(-3)).toBeUndefined();
  });

  it("are Gitea's Ghost and Actions users, shaped like any other user", () => {
    expect(GHOST_USER).toMatchObject({ id: -1, login: 'Ghost', email: '', visibility: 'public', type: 0 });
    const plain = { id: 2, isAdmin: false, isRestricted: false };
    expect(userForViewer(GHOST_USER, ANONYMOUS, 'noreply.localhost').email).toBe('-1+ghost@noreply.localhost');
    expect(userForViewer(ACTIONS_USER, plain, 'noreply.localhost').email).toBe('-2+gitea-actions@noreply.localhost');
    expect(userForViewer(ACTIONS_USER, { id: 9, isAdmin: true, isRestricted: false }, 'noreply.localhost').email).toBe('teabot@gitea.io');
  });
});

describe('listedVisibilities', () => {
  it('keeps the filter asked for, or every visibility', () => {
    expect(listedVisibilities(undefined, false)).toBeUndefined();
    expect(listedVisibilities('private', false)).toEqual(['private']);
  });

  it('keeps a public-only token to public users, and to nobody when it asks for others', () => {
    expect(listedVisibilities(undefined, true)).toEqual(['public']);
    expect(listedVisibilities('public', true)).toEqual(['public']);
    expect(listedVisibilities('limited', true)).toEqual([]);
    expect(listedVisibilities('private', true)).toEqual([]);
  });
});
