/**
 * What an UpdateUser request changes: only the fields it sets, checked, and only those whose value differs,
 * so the `cairn.user.updated` event names exactly the fields that changed.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { assertValidEmail } from './email';
import { assertEmailNotificationsPreference } from './email-notifications';
import { isVisibility } from './visibility';
import { visibilityInvalid } from './errors';

/** Fields UpdateUser may set (the password is handled apart: it is hashed, never compared). */
export const EDITABLE_USER_FIELDS = [
  'email',
  'fullName',
  'loginName',
  'sourceId',
  'mustChangePassword',
  'website',
  'location',
  'description',
  'active',
  'isAdmin',
  'allowGitHook',
  'allowImportLocal',
  'maxRepoCreation',
  'prohibitLogin',
  'allowCreateOrganization',
  'restricted',
  'visibility',
  'language',
  'keepEmailPrivate',
  'keepActivityPrivate',
  'theme',
  'diffViewStyle',
  'emailNotificationsPreference',
] as const satisfies readonly (keyof User)[];

export type EditableUserField = (typeof EDITABLE_USER_FIELDS)[number];
export type EditableUser = Pick<User, EditableUserField>;
export type UserEdits = Partial<EditableUser>;

export interface UserUpdatePlan {
  /** The fields to write, with their new values. */
  changes: UserEdits;
  /** Their proto field names (`full_name`, `is_admin`, …), in a stable order, for the event. */
  changed: string[];
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Checks the set fields of `edits` and keeps those that differ from `current`. */
export function planUserUpdate(current: EditableUser, edits: UserEdits): UserUpdatePlan {
  if (edits.email !== undefined) assertValidEmail(edits.email);
  // Gitea's EditUserOption accepts an empty visibility and leaves the visibility as it is.
  const visibility = edits.visibility === '' ? undefined : edits.visibility;
  if (visibility !== undefined && !isVisibility(visibility)) throw visibilityInvalid(visibility);
  if (edits.emailNotificationsPreference !== undefined) assertEmailNotificationsPreference(edits.emailNotificationsPreference);
  const wanted: UserEdits = { ...edits, visibility };
  const changes: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const field of EDITABLE_USER_FIELDS) {
    const value = wanted[field];
    if (value === undefined || value === current[field]) continue;
    changes[field] = value;
    changed.push(snakeCase(field));
  }
  return { changes: changes as UserEdits, changed };
}
