/**
 * What a user search asks for (Gitea's `SearchUserOptions`, models/user/search.go, and the admin API's sort and
 * visibility parameters), checked and normalised before a store turns it into SQL.
 */
import { CairnError } from '@cairn/rpc';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import { Reason } from './errors';
import { isVisibility, type Visibility } from './visibility';
import { isSignedIn, type Viewer } from './visibility-rules';

/**
 * The LIKE pattern matching values that contain `keyword`, case-insensitively (the stores compare lower-case
 * columns): Gitea lower-cases the keyword and looks for it anywhere. `%`, `_` and `\` in the keyword are escaped,
 * so they match themselves (Gitea passes them through as wildcards; here a search for `a_b` finds `a_b` only).
 * Undefined for an empty keyword, which matches everyone.
 */
export function containsPattern(keyword: string): string | undefined {
  if (keyword === '') return undefined;
  return `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Whose e-mail a keyword may match: only addresses the viewer could read (`canSeeEmail`), so a search can never
 * confirm a hidden address. Gitea also matches unhidden addresses for anonymous callers, who are shown only
 * placeholders; Cairn does not.
 */
export type EmailMatchScope = { kind: 'none' } | { kind: 'all' } | { kind: 'unhidden_or_self'; viewerId: number };

export function emailMatchScope(viewer: Viewer): EmailMatchScope {
  if (!isSignedIn(viewer)) return { kind: 'none' };
  if (viewer.isAdmin) return { kind: 'all' };
  return { kind: 'unhidden_or_self', viewerId: viewer.id };
}

export type UserSortColumn = 'name' | 'created' | 'updated' | 'id';

export interface UserOrder {
  column: UserSortColumn;
  descending: boolean;
}

/** Alphabetical, as Gitea's default `SearchOrderByAlphabetically`. */
export const BY_NAME: UserOrder = Object.freeze({ column: 'name', descending: false });

const SORT_COLUMNS: readonly UserSortColumn[] = ['name', 'created', 'updated', 'id'];

export function invalidSort(): CairnError {
  return CairnError.invalid('Invalid sort and order parameters', { reason: Reason.sortInvalid });
}

/**
 * The admin list's `sort` and `order` (Gitea's `AdminUserOrderByMap`): no sort is by name, whatever the order;
 * a sort without an order is ascending; anything else is refused.
 */
export function parseUserOrder(sort: string, order: string): UserOrder {
  if (sort === '') return BY_NAME;
  const direction = order === '' ? 'asc' : order;
  if (!(SORT_COLUMNS as readonly string[]).includes(sort) || (direction !== 'asc' && direction !== 'desc')) throw invalidSort();
  return { column: sort as UserSortColumn, descending: direction === 'desc' };
}

/** The admin list's `visibility` filter: empty for any, else one of the three names. */
export function parseVisibilityFilter(value: string): Visibility | undefined {
  if (value === '') return undefined;
  if (!isVisibility(value)) throw CairnError.invalid('Invalid visibility parameter', { reason: Reason.visibilityInvalid });
  return value;
}

/**
 * The visibilities a user list keeps: the one asked for (every one when none), and through a public-only token
 * (Gitea's `ctx.PublicOnly`) only `public` among them — nothing when another one was asked for.
 */
export function listedVisibilities(filter: Visibility | undefined, publicOnly: boolean): Visibility[] | undefined {
  if (!publicOnly) return filter === undefined ? undefined : [filter];
  return filter === undefined || filter === 'public' ? ['public'] : [];
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/** A page request as LIMIT/OFFSET; no page (or no limit) is every row. */
export function pageWindow(page: PageRequest | undefined): PageWindow | undefined {
  if (page === undefined || page.limit <= 0) return undefined;
  return { limit: page.limit, offset: (Math.max(page.page, 1) - 1) * page.limit };
}

/** Gitea's pseudo users, answered by a search for their ids (`uid=-1`, `uid=-2`) though no row holds them. */
export const GHOST_USER_ID = -1;
export const ACTIONS_USER_ID = -2;

const EPOCH = new Date(0);

function pseudoUser(fields: Pick<User, 'id' | 'login' | 'fullName' | 'email' | 'loginName' | 'active' | 'keepEmailPrivate'>): User {
  return {
    sourceId: 0,
    language: '',
    isAdmin: false,
    lastLogin: EPOCH,
    created: EPOCH,
    restricted: false,
    prohibitLogin: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    mustChangePassword: false,
    maxRepoCreation: -1,
    allowGitHook: false,
    allowImportLocal: false,
    allowCreateOrganization: false,
    updated: EPOCH,
    type: 0,
    keepActivityPrivate: false,
    theme: '',
    diffViewStyle: '',
    emailNotificationsPreference: '',
    ...fields,
  };
}

/** `user_model.NewGhostUser()`: stands for deleted users. */
export const GHOST_USER: User = pseudoUser({ id: GHOST_USER_ID, login: 'Ghost', fullName: '', email: '', loginName: '', active: false, keepEmailPrivate: false });

/** `user_model.NewActionsUser()`: the author of what Actions do. */
export const ACTIONS_USER: User = pseudoUser({
  id: ACTIONS_USER_ID,
  login: 'gitea-actions',
  fullName: 'Gitea Actions',
  email: 'teabot@gitea.io',
  loginName: 'gitea-actions',
  active: true,
  keepEmailPrivate: true,
});

/** The pseudo user a search for `uid` stands for, if any. */
export function pseudoUserFor(uid: number): User | undefined {
  if (uid === GHOST_USER_ID) return GHOST_USER;
  if (uid === ACTIONS_USER_ID) return ACTIONS_USER;
  return undefined;
}
