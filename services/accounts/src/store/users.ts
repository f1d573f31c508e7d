/** The `users` table: queries and the row → proto mapping. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type SqlToken } from '@cairn/db';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { EditableUserField, UserEdits } from '../domain/user-update';
import { VISIBILITIES, type Visibility } from '../domain/visibility';

export const userRow = z.object({
  id: z.number(),
  name: z.string(),
  full_name: z.string(),
  email: z.string(),
  must_change_password: z.boolean(),
  login_name: z.string(),
  source_id: z.number(),
  is_admin: z.boolean(),
  is_active: z.boolean(),
  prohibit_login: z.boolean(),
  restricted: z.boolean(),
  visibility: z.enum(VISIBILITIES),
  language: z.string(),
  location: z.string(),
  website: z.string(),
  description: z.string(),
  max_repo_creation: z.number(),
  allow_git_hook: z.boolean(),
  allow_import_local: z.boolean(),
  allow_create_organization: z.boolean(),
  last_login: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
  type: z.number(),
  keep_email_private: z.boolean(),
  keep_activity_private: z.boolean(),
  theme: z.string(),
  diff_view_style: z.string(),
  email_notifications_preference: z.string(),
  /** Grows with every change of the row (migration 0007); events carry it. */
  version: z.number(),
});
export type UserRow = z.infer<typeof userRow>;

const signInRow = userRow.extend({ password_hash: z.string() });
export type SignInRow = z.infer<typeof signInRow>;

/** The columns of `userRow`, optionally qualified by a table alias. */
export function userColumns(alias?: string): SqlToken {
  const names = Object.keys(userRow.shape);
  return sql.join(
    names.map((name) => sql.identifier(alias === undefined ? [name] : [alias, name])),
    sql.fragment`, `,
  );
}

const USER_COLUMNS = userColumns();

/** Proto field → column, for the fields UpdateUser may write. */
const EDITABLE_COLUMNS: Readonly<Record<EditableUserField, string>> = {
  email: 'email',
  fullName: 'full_name',
  loginName: 'login_name',
  sourceId: 'source_id',
  mustChangePassword: 'must_change_password',
  website: 'website',
  location: 'location',
  description: 'description',
  active: 'is_active',
  isAdmin: 'is_admin',
  allowGitHook: 'allow_git_hook',
  allowImportLocal: 'allow_import_local',
  maxRepoCreation: 'max_repo_creation',
  prohibitLogin: 'prohibit_login',
  allowCreateOrganization: 'allow_create_organization',
  restricted: 'restricted',
  visibility: 'visibility',
  language: 'language',
  keepEmailPrivate: 'keep_email_private',
  keepActivityPrivate: 'keep_activity_private',
  theme: 'theme',
  diffViewStyle: 'diff_view_style',
  emailNotificationsPreference: 'email_notifications_preference',
};

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    login: row.name,
    loginName: row.login_name,
    sourceId: row.source_id,
    fullName: row.full_name,
    email: row.email,
    language: row.language,
    isAdmin: row.is_admin,
    // The proto's "never signed in" is the zero time, as Gitea's last_login.
    lastLogin: row.last_login ?? new Date(0),
    created: row.created_at,
    restricted: row.restricted,
    active: row.is_active,
    prohibitLogin: row.prohibit_login,
    location: row.location,
    website: row.website,
    description: row.description,
    visibility: row.visibility,
    mustChangePassword: row.must_change_password,
    maxRepoCreation: row.max_repo_creation,
    allowGitHook: row.allow_git_hook,
    allowImportLocal: row.allow_import_local,
    allowCreateOrganization: row.allow_create_organization,
    updated: row.updated_at,
    type: row.type,
    keepEmailPrivate: row.keep_email_private,
    keepActivityPrivate: row.keep_activity_private,
    theme: row.theme,
    diffViewStyle: row.diff_view_style,
    emailNotificationsPreference: row.email_notifications_preference,
  };
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  fullName: string;
  loginName: string;
  sourceId: number;
  mustChangePassword: boolean;
  restricted: boolean;
  visibility: Visibility;
  isAdmin: boolean;
  allowCreateOrganization: boolean;
  /** `[admin] DEFAULT_EMAIL_NOTIFICATIONS`, as Gitea's CreateUser sets it. */
  emailNotificationsPreference: string;
  /** Unset: now. */
  createdAt: Date | undefined;
}

export async function insertUser(tx: DatabaseTransactionConnection, user: NewUser): Promise<UserRow> {
  const createdAt = user.createdAt === undefined ? sql.fragment`now()` : sql.timestamp(user.createdAt);
  return tx.one(sql.type(userRow)`
    INSERT INTO users (name, lower_name, email, password_hash, full_name, login_name, source_id, must_change_password,
                       restricted, visibility, is_admin, allow_create_organization, email_notifications_preference, created_at, updated_at)
    VALUES (${user.name}, ${user.name.toLowerCase()}, ${user.email}, ${user.passwordHash}, ${user.fullName},
            ${user.loginName}, ${user.sourceId}, ${user.mustChangePassword}, ${user.restricted}, ${user.visibility},
            ${user.isAdmin}, ${user.allowCreateOrganization}, ${user.emailNotificationsPreference}, ${createdAt}, ${createdAt})
    RETURNING ${USER_COLUMNS}
  `);
}

export function findUserById(db: CommonQueryMethods, id: number): Promise<UserRow | null> {
  return db.maybeOne(sql.type(userRow)`SELECT ${USER_COLUMNS} FROM users WHERE id = ${id}`);
}

/** Case-insensitive, as Gitea's lower_name. */
export function findUserByName(db: CommonQueryMethods, name: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(userRow)`SELECT ${USER_COLUMNS} FROM users WHERE lower_name = ${name.toLowerCase()}`);
}

export async function findUsersByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<readonly UserRow[]> {
  if (ids.length === 0) return [];
  return db.any(sql.type(userRow)`SELECT ${USER_COLUMNS} FROM users WHERE id = ANY(${sql.array([...ids], 'int8')})`);
}

/** Active individual users whose e-mail is one of `emails`, compared case-insensitively (users_lower_email_key). */
export async function findActiveUsersByEmails(db: CommonQueryMethods, emails: readonly string[]): Promise<readonly UserRow[]> {
  const lowered = [...new Set(emails.filter((email) => email !== '').map((email) => email.toLowerCase()))];
  if (lowered.length === 0) return [];
  return db.any(sql.type(userRow)`
    SELECT ${USER_COLUMNS} FROM users
    WHERE lower(email) = ANY(${sql.array(lowered, 'text')}) AND email <> '' AND type = 0 AND is_active
  `);
}

/** Locks the row for a read-modify-write in `tx`. */
export function lockUser(tx: DatabaseTransactionConnection, id: number): Promise<UserRow | null> {
  return tx.maybeOne(sql.type(userRow)`SELECT ${USER_COLUMNS} FROM users WHERE id = ${id} FOR UPDATE`);
}

const takenRow = z.object({ name_taken: z.boolean(), email_taken: z.boolean() });

/**
 * Whether another account (not `exceptId`) already uses the name or the address, both case-insensitively.
 * The unique indexes remain the guarantee; this lets the common case fail with the right message first.
 */
export async function findConflicts(
  db: CommonQueryMethods,
  probe: { name?: string; email?: string; exceptId?: number },
): Promise<{ nameTaken: boolean; emailTaken: boolean }> {
  const lowerName = probe.name?.toLowerCase() ?? null;
  const email = probe.email ?? null;
  const row = await db.one(sql.type(takenRow)`
    SELECT coalesce(bool_or(lower_name = ${lowerName}), false) AS name_taken,
           coalesce(bool_or(lower(email) = lower(${email}::text)), false) AS email_taken
    FROM users
    WHERE (lower_name = ${lowerName} OR lower(email) = lower(${email}::text))
      AND id <> ${probe.exceptId ?? 0}
  `);
  return { nameTaken: row.name_taken, emailTaken: row.email_taken };
}

/** For sign-in: by e-mail when the login contains `@`, else by name (Gitea's UserSignIn), both ignoring case. */
export function findUserForSignIn(db: CommonQueryMethods, login: string): Promise<SignInRow | null> {
  const where = login.includes('@')
    ? sql.fragment`lower(email) = lower(${login})`
    : sql.fragment`lower_name = ${login.toLowerCase()}`;
  // Organizations never sign in.
  return db.maybeOne(sql.type(signInRow)`SELECT ${USER_COLUMNS}, password_hash FROM users WHERE ${where} AND type = 0`);
}

export function recordLogin(db: CommonQueryMethods, id: number): Promise<UserRow> {
  return db.one(sql.type(userRow)`UPDATE users SET last_login = now() WHERE id = ${id} RETURNING ${USER_COLUMNS}`);
}

/** Writes `changes` (and a new password hash, when given) and bumps updated_at. */
export function updateUser(
  tx: DatabaseTransactionConnection,
  id: number,
  changes: UserEdits,
  passwordHash: string | undefined,
): Promise<UserRow> {
  const assignments = Object.entries(changes).map(
    ([field, value]) => sql.fragment`${sql.identifier([EDITABLE_COLUMNS[field as EditableUserField]])} = ${value as string | number | boolean}`,
  );
  if (passwordHash !== undefined) assignments.push(sql.fragment`password_hash = ${passwordHash}`);
  assignments.push(sql.fragment`updated_at = now()`);
  return tx.one(sql.type(userRow)`
    UPDATE users SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id} RETURNING ${USER_COLUMNS}
  `);
}

/** Sets the account's name (and lower_name with it). */
export function renameUser(tx: DatabaseTransactionConnection, id: number, name: string): Promise<UserRow> {
  return tx.one(sql.type(userRow)`
    UPDATE users SET name = ${name}, lower_name = ${name.toLowerCase()}, updated_at = now() WHERE id = ${id} RETURNING ${USER_COLUMNS}
  `);
}

const deletedRow = z.object({ id: z.number(), name: z.string() });

/** Deletes the user (its tokens go with it, ON DELETE CASCADE); null when there was none. */
export function deleteUser(tx: DatabaseTransactionConnection, id: number): Promise<{ id: number; name: string } | null> {
  return tx.maybeOne(sql.type(deletedRow)`DELETE FROM users WHERE id = ${id} RETURNING id, name`);
}
