/** Searching the `users` table: one filter builder for the page and its total, so both count the same rows. */
import { sql, z, type CommonQueryMethods, type SqlToken } from '@cairn/db';
import type { EmailMatchScope, PageWindow, UserOrder } from '../domain/user-search';
import type { UserListScope } from '../domain/visibility-rules';
import type { Visibility } from '../domain/visibility';
import { userColumns, userRow, type UserRow } from './users';
import { userListScopeCondition } from './visibility-facts';

export interface UserSearch {
  /** Which users the viewer may list. */
  scope: UserListScope;
  /** A LIKE pattern over lower-case name, full name and, where `emailScope` allows, e-mail; none: everyone. */
  pattern?: string;
  emailScope: EmailMatchScope;
  /** Only this id. */
  id?: number;
  /** Only these visibilities. */
  visibilities?: readonly Visibility[];
  isActive?: boolean;
  isAdmin?: boolean;
  isRestricted?: boolean;
  isProhibitLogin?: boolean;
  /** Nobody has two-factor authentication: true matches no one. */
  isTwoFactorEnabled?: boolean;
  sourceId?: number;
  loginName?: string;
  order: UserOrder;
  window?: PageWindow;
}

// LIKE's default escape character, backslash, is the one containsPattern escapes with.
function emailMatch(pattern: string, scope: EmailMatchScope): SqlToken {
  const matches = sql.fragment`lower(users.email) LIKE ${pattern}`;
  switch (scope.kind) {
    case 'none':
      return sql.fragment`false`;
    case 'all':
      return matches;
    case 'unhidden_or_self':
      return sql.fragment`(${matches} AND (NOT users.keep_email_private OR users.id = ${scope.viewerId}))`;
  }
}

function where(search: UserSearch): SqlToken {
  // Searches list individuals only; organizations have their own lists.
  const conditions: SqlToken[] = [sql.fragment`users.type = 0`, userListScopeCondition(search.scope)];
  const { pattern } = search;
  if (pattern !== undefined) {
    conditions.push(sql.fragment`(
      users.lower_name LIKE ${pattern}
      OR lower(users.full_name) LIKE ${pattern}
      OR ${emailMatch(pattern, search.emailScope)}
    )`);
  }
  if (search.id !== undefined) conditions.push(sql.fragment`users.id = ${search.id}`);
  if (search.visibilities !== undefined) conditions.push(sql.fragment`users.visibility = ANY(${sql.array([...search.visibilities], 'text')})`);
  if (search.isActive !== undefined) conditions.push(sql.fragment`users.is_active = ${search.isActive}`);
  if (search.isAdmin !== undefined) conditions.push(sql.fragment`users.is_admin = ${search.isAdmin}`);
  if (search.isRestricted !== undefined) conditions.push(sql.fragment`users.restricted = ${search.isRestricted}`);
  if (search.isProhibitLogin !== undefined) conditions.push(sql.fragment`users.prohibit_login = ${search.isProhibitLogin}`);
  if (search.isTwoFactorEnabled === true) conditions.push(sql.fragment`false`);
  if (search.sourceId !== undefined) conditions.push(sql.fragment`users.source_id = ${search.sourceId}`);
  if (search.loginName !== undefined) conditions.push(sql.fragment`users.login_name = ${search.loginName}`);
  return sql.join(conditions, sql.fragment` AND `);
}

const ORDER_COLUMNS = {
  name: sql.fragment`users.lower_name`,
  created: sql.fragment`users.created_at`,
  updated: sql.fragment`users.updated_at`,
  id: sql.fragment`users.id`,
} as const;

function orderBy({ column, descending }: UserOrder): SqlToken {
  const direction = descending ? sql.fragment`DESC` : sql.fragment`ASC`;
  // The id breaks ties, so pages never overlap.
  return column === 'id'
    ? sql.fragment`users.id ${direction}`
    : sql.fragment`${ORDER_COLUMNS[column]} ${direction}, users.id ${direction}`;
}

export async function searchUsers(db: CommonQueryMethods, search: UserSearch): Promise<{ rows: readonly UserRow[]; total: number }> {
  const condition = where(search);
  const paging = search.window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${search.window.limit} OFFSET ${search.window.offset}`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(userRow)`SELECT ${userColumns('users')} FROM users WHERE ${condition} ORDER BY ${orderBy(search.order)} ${paging}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM users WHERE ${condition}`),
  ]);
  return { rows, total };
}
