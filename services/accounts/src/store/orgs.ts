/**
 * Organizations: the rows of `users` with `type = 1` (one namespace with individual users, as Gitea), their
 * queries and the row → proto mapping.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type SqlToken } from '@cairn/db';
import type { Organization } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { PageWindow } from '../domain/user-search';
import { VISIBILITIES, type Visibility } from '../domain/visibility';
import { ANONYMOUS, canSeeOrgEmail, type OrgListScope, type UserOrgsScope, type Viewer } from '../domain/visibility-rules';

export const ORG_TYPE = 1;

export const orgRow = z.object({
  id: z.number(),
  name: z.string(),
  full_name: z.string(),
  email: z.string(),
  description: z.string(),
  website: z.string(),
  location: z.string(),
  visibility: z.enum(VISIBILITIES),
  repo_admin_change_team_access: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
  /** Grows with every change of the row (migration 0007); events carry it. */
  version: z.number(),
});
export type OrgRow = z.infer<typeof orgRow>;

const ORG_COLUMNS = sql.join(
  Object.keys(orgRow.shape).map((name) => sql.identifier(['users', name])),
  sql.fragment`, `,
);

/** The organization as `viewer` may see it: anonymous viewers get no e-mail (Gitea's `org.Get`). */
export function toOrganization(row: OrgRow, viewer: Viewer): Organization {
  return {
    id: row.id,
    name: row.name,
    fullName: row.full_name,
    email: canSeeOrgEmail(viewer) ? row.email : '',
    description: row.description,
    website: row.website,
    location: row.location,
    visibility: row.visibility,
    repoAdminChangeTeamAccess: row.repo_admin_change_team_access,
    created: row.created_at,
    updated: row.updated_at,
  };
}

/** Every field, for events. */
export function toOrganizationRecord(row: OrgRow): Organization {
  return { ...toOrganization(row, ANONYMOUS), email: row.email };
}

export interface NewOrg {
  name: string;
  fullName: string;
  email: string;
  description: string;
  website: string;
  location: string;
  visibility: Visibility;
  repoAdminChangeTeamAccess: boolean;
}

export function insertOrg(tx: DatabaseTransactionConnection, org: NewOrg): Promise<OrgRow> {
  return tx.one(sql.type(orgRow)`
    INSERT INTO users (type, name, lower_name, email, full_name, description, website, location, visibility,
                       repo_admin_change_team_access, allow_create_organization)
    VALUES (${ORG_TYPE}, ${org.name}, ${org.name.toLowerCase()}, ${org.email}, ${org.fullName}, ${org.description},
            ${org.website}, ${org.location}, ${org.visibility}, ${org.repoAdminChangeTeamAccess}, false)
    RETURNING ${ORG_COLUMNS}
  `);
}

export function findOrgById(db: CommonQueryMethods, id: number): Promise<OrgRow | null> {
  return db.maybeOne(sql.type(orgRow)`SELECT ${ORG_COLUMNS} FROM users WHERE id = ${id} AND type = ${ORG_TYPE}`);
}

/** The organizations among `ids` that exist. */
export async function findOrgsByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<readonly OrgRow[]> {
  if (ids.length === 0) return [];
  return db.any(sql.type(orgRow)`SELECT ${ORG_COLUMNS} FROM users WHERE id = ANY(${sql.array(ids, 'int8')}) AND type = ${ORG_TYPE}`);
}

/** By current name, case-insensitively. */
export function findOrgByName(db: CommonQueryMethods, name: string): Promise<OrgRow | null> {
  return db.maybeOne(sql.type(orgRow)`SELECT ${ORG_COLUMNS} FROM users WHERE lower_name = ${name.toLowerCase()} AND type = ${ORG_TYPE}`);
}

/** Locks the organization's row for a read-modify-write (and to serialise changes to its teams) in `tx`. */
export function lockOrg(tx: DatabaseTransactionConnection, id: number): Promise<OrgRow | null> {
  return tx.maybeOne(sql.type(orgRow)`SELECT ${ORG_COLUMNS} FROM users WHERE id = ${id} AND type = ${ORG_TYPE} FOR UPDATE`);
}

/** `orgListScope` as a condition on `users`, the same sets as `isOrgInListScope`. */
function orgListScopeCondition(scope: OrgListScope): SqlToken {
  if (scope.kind === 'all') return sql.fragment`true`;
  const either: SqlToken[] = [];
  if (scope.visibilities.length > 0) either.push(sql.fragment`users.visibility = ANY(${sql.array([...scope.visibilities], 'text')})`);
  if (scope.memberId > 0) either.push(sql.fragment`users.id IN (SELECT org_id FROM org_users WHERE uid = ${scope.memberId})`);
  return either.length === 0 ? sql.fragment`false` : sql.fragment`(${sql.join(either, sql.fragment` OR `)})`;
}

const totalRow = z.object({ total: z.number() });

function paging(window: PageWindow | undefined): SqlToken {
  return window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
}

/** A page of the organizations in `scope`, alphabetical (Gitea's `SearchOrderByAlphabetically`), and their total. */
export async function listOrgs(
  db: CommonQueryMethods,
  scope: OrgListScope,
  window: PageWindow | undefined,
): Promise<{ rows: readonly OrgRow[]; total: number }> {
  const where = sql.fragment`users.type = ${ORG_TYPE} AND ${orgListScopeCondition(scope)}`;
  const rows = await db.any(sql.type(orgRow)`
    SELECT ${ORG_COLUMNS} FROM users WHERE ${where} ORDER BY users.lower_name, users.id ${paging(window)}
  `);
  const { total } = await db.one(sql.type(totalRow)`SELECT count(*)::int AS total FROM users WHERE ${where}`);
  return { rows, total };
}

/** A page of the organizations `userId` belongs to, within `scope`, alphabetical, and their total. */
export async function listUserOrgs(
  db: CommonQueryMethods,
  userId: number,
  scope: UserOrgsScope,
  window: PageWindow | undefined,
): Promise<{ rows: readonly OrgRow[]; total: number }> {
  const conditions: SqlToken[] = [sql.fragment`users.type = ${ORG_TYPE}`];
  if (scope.kind === 'public_orgs') conditions.push(sql.fragment`users.visibility = 'public'`);
  if (scope.kind === 'public_memberships') {
    conditions.push(
      sql.fragment`membership.is_public`,
      sql.fragment`users.visibility = ANY(${sql.array([...scope.visibilities], 'text')})`,
      orgListScopeCondition(scope.orgs),
    );
  }
  const from = sql.fragment`users JOIN org_users membership ON membership.org_id = users.id AND membership.uid = ${userId}`;
  const where = sql.join(conditions, sql.fragment` AND `);
  const rows = await db.any(sql.type(orgRow)`
    SELECT ${ORG_COLUMNS} FROM ${from} WHERE ${where} ORDER BY users.lower_name, users.id ${paging(window)}
  `);
  const { total } = await db.one(sql.type(totalRow)`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`);
  return { rows, total };
}

/** Proto field → column, for the fields UpdateOrg may write. */
export const EDITABLE_ORG_COLUMNS = {
  fullName: 'full_name',
  email: 'email',
  description: 'description',
  website: 'website',
  location: 'location',
  visibility: 'visibility',
  repoAdminChangeTeamAccess: 'repo_admin_change_team_access',
} as const;
export type EditableOrgField = keyof typeof EDITABLE_ORG_COLUMNS;
export type OrgEdits = Partial<Pick<Organization, EditableOrgField>>;

export function updateOrg(tx: DatabaseTransactionConnection, id: number, changes: OrgEdits): Promise<OrgRow> {
  const assignments = Object.entries(changes).map(
    ([field, value]) => sql.fragment`${sql.identifier([EDITABLE_ORG_COLUMNS[field as EditableOrgField]])} = ${value as string | boolean}`,
  );
  assignments.push(sql.fragment`updated_at = now()`);
  return tx.one(sql.type(orgRow)`
    UPDATE users SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id} RETURNING ${ORG_COLUMNS}
  `);
}

/** Deletes the organization; its teams, memberships and redirects go with it (ON DELETE CASCADE). */
export async function deleteOrg(tx: DatabaseTransactionConnection, id: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM users WHERE id = ${id} AND type = ${ORG_TYPE}`);
}
