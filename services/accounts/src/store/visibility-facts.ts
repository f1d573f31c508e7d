/**
 * The facts the visibility rules (domain/visibility-rules.ts) need from the database, and their list scopes as
 * SQL. Memberships live in `org_users` (organization members) and `team_users` (team members, with the team's
 * organization), as in Gitea.
 */
import { sql, type CommonQueryMethods, type SqlToken } from '@cairn/db';
import type { UserListScope } from '../domain/visibility-rules';

/**
 * Gitea's team query in `IsUserVisibleToViewer`: the viewer is in a team of an organization the user is in a team
 * of, or the "user" is an organization with the viewer in one of its teams.
 */
export function sharesOrganization(db: CommonQueryMethods, viewerId: number, userId: number): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM team_users
    WHERE uid = ${viewerId}
      AND (org_id = ${userId} OR org_id IN (SELECT org_id FROM team_users WHERE uid = ${userId}))
  `);
}

export function isOrgMember(db: CommonQueryMethods, orgId: number, uid: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM org_users WHERE org_id = ${orgId} AND uid = ${uid}`);
}

/** `userListScope` as a condition on the `users` table (unaliased), the same sets as `isUserInListScope`. */
export function userListScopeCondition(scope: UserListScope): SqlToken {
  switch (scope.kind) {
    case 'all':
      return sql.fragment`true`;
    case 'public':
      return sql.fragment`users.visibility = 'public'`;
    case 'signed_in':
      return sql.fragment`(
        users.visibility <> 'private'
        OR users.id = ${scope.viewerId}
        OR users.id IN (SELECT mates.uid FROM team_users mates JOIN team_users mine ON mine.org_id = mates.org_id WHERE mine.uid = ${scope.viewerId})
        OR users.id IN (SELECT org_id FROM team_users WHERE uid = ${scope.viewerId})
      )`;
  }
}
