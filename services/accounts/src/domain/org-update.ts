/**
 * What an UpdateOrg request changes (Gitea's `org.Edit`): only the fields it sets, checked, and only those whose
 * value differs, so `cairn.org.updated` names exactly the fields that changed. An empty visibility leaves the
 * visibility as it is; an empty e-mail clears it.
 */
import { emailError } from './email';
import { visibilityInvalid } from './errors';
import { isVisibility } from './visibility';

export interface OrgProfile {
  fullName: string;
  email: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repoAdminChangeTeamAccess: boolean;
}

export const EDITABLE_ORG_FIELDS = [
  'fullName',
  'email',
  'description',
  'website',
  'location',
  'visibility',
  'repoAdminChangeTeamAccess',
] as const satisfies readonly (keyof OrgProfile)[];

export type OrgProfileEdits = Partial<OrgProfile>;

export interface OrgUpdatePlan {
  changes: OrgProfileEdits;
  /** Proto field names (`full_name`, …) of the changes, in a stable order. */
  changed: string[];
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function planOrgUpdate(current: OrgProfile, edits: OrgProfileEdits): OrgUpdatePlan {
  const visibility = edits.visibility === '' ? undefined : edits.visibility;
  if (visibility !== undefined && !isVisibility(visibility)) throw visibilityInvalid(visibility);
  if (edits.email !== undefined && edits.email !== '') {
    const error = emailError(edits.email);
    if (error !== undefined) throw error;
  }
  const wanted: OrgProfileEdits = { ...edits, visibility };
  const changes: Record<string, string | boolean> = {};
  const changed: string[] = [];
  for (const field of EDITABLE_ORG_FIELDS) {
    const value = wanted[field];
    if (value === undefined || value === current[field]) continue;
    changes[field] = value;
    changed.push(snakeCase(field));
  }
  return { changes: changes as OrgProfileEdits, changed };
}
