/**
 * Where hooks live, between the API's HookOwner and the table's scope column: a repository's, an organization's or
 * a user's hooks, and the instance's system and default hooks (Gitea's models/webhook: repo_id, owner_id,
 * is_system_webhook).
 */
import { type HookOwner, HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { CairnError } from '@cairn/rpc';

export type HookScopeName = 'repository' | 'organization' | 'user' | 'system' | 'default';

/** One scope's hooks: a repository (repoId), an organization or user (ownerId), or the instance (system, default). */
export interface HookPlace {
  scope: HookScopeName;
  repoId?: number;
  ownerId?: number;
}

const SCOPE_NAMES: ReadonlyMap<HookScope, HookScopeName> = new Map([
  [HookScope.HOOK_SCOPE_REPOSITORY, 'repository'],
  [HookScope.HOOK_SCOPE_ORGANIZATION, 'organization'],
  [HookScope.HOOK_SCOPE_USER, 'user'],
  [HookScope.HOOK_SCOPE_SYSTEM, 'system'],
  [HookScope.HOOK_SCOPE_DEFAULT, 'default'],
]);

const SCOPES: ReadonlyMap<HookScopeName, HookScope> = new Map([...SCOPE_NAMES].map(([scope, name]) => [name, scope]));

function invalidOwner(): CairnError {
  return CairnError.invalid('a hook owner needs a scope and, for a repository, organization or user, its id', { reason: 'invalid_hook_owner' });
}

/** The one place `owner` names (where a hook is created). */
export function placeOf(owner: HookOwner | undefined): HookPlace {
  const scope = owner === undefined ? undefined : SCOPE_NAMES.get(owner.scope);
  if (owner === undefined || scope === undefined) throw invalidOwner();
  if (scope === 'repository') {
    if (owner.repoId <= 0) throw invalidOwner();
    return { scope, repoId: owner.repoId };
  }
  if (scope === 'organization' || scope === 'user') {
    if (owner.ownerId <= 0) throw invalidOwner();
    return { scope, ownerId: owner.ownerId };
  }
  return { scope };
}

/**
 * The places a hook id is looked up in: the owner's own, except that a system or default owner finds both kinds
 * (Gitea's GetSystemOrDefaultWebhook behind `/admin/hooks/{id}`).
 */
export function lookupPlacesOf(owner: HookOwner | undefined): HookPlace[] {
  const place = placeOf(owner);
  return place.scope === 'system' || place.scope === 'default' ? [{ scope: 'system' }, { scope: 'default' }] : [place];
}

/** The places a list covers: `scopes` (instance scopes only) when given, else the owner's. */
export function listPlacesOf(owner: HookOwner | undefined, scopes: readonly HookScope[]): HookPlace[] {
  if (scopes.length === 0) return [placeOf(owner)];
  return scopes.map((scope) => {
    const name = SCOPE_NAMES.get(scope);
    if (name !== 'system' && name !== 'default') throw invalidOwner();
    return { scope: name };
  });
}

/** The API's owner of a stored hook. */
export function ownerOf(place: { scope: HookScopeName; repoId: number | null; ownerId: number | null }): HookOwner {
  const scope = SCOPES.get(place.scope);
  if (scope === undefined) throw new Error(`unknown hook scope ${place.scope}`);
  return { scope, repoId: place.repoId ?? 0, ownerId: place.ownerId ?? 0 };
}
