/**
 * What repos asks accounts about users and organizations. Lookups that decide nothing for the viewer (an owner's
 * limits, a collaborator's flags) are made as a site admin, so accounts answers the whole account.
 */
import type { ResolveNameResponse, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { actorOf, CairnError, Code } from '@cairn/rpc';
import { OWNER_ORG, OWNER_USER, type Viewer, type Visibility } from '../domain/access';
import type { OwnerFacts } from '../store/repositories';
import type { ReposContext } from './context';

/** A site admin's view, for service-internal lookups (`asId` only has to be a signed-in id). */
export function internalActor(asId: number): Actor {
  return { userId: Math.max(asId, 1), isAdmin: true, isRestricted: false };
}

export function asVisibility(value: string): Visibility {
  return value === 'limited' || value === 'private' ? value : 'public';
}

export function ownerFactsOf(user: Pick<User, 'id' | 'login' | 'type' | 'visibility'>): OwnerFacts {
  return {
    ownerId: user.id,
    ownerName: user.login,
    ownerType: user.type === OWNER_ORG ? OWNER_ORG : OWNER_USER,
    ownerVisibility: asVisibility(user.visibility),
  };
}

export function userNotFound(name: string): CairnError {
  return CairnError.notFound(`user does not exist [uid: 0, name: ${name}]`, { reason: 'user_not_found' });
}

/** The whole account with that id (NOT_FOUND when none). */
export async function accountById(context: ReposContext, id: number): Promise<User> {
  const { user } = await context.accounts.users.getUser({ id, viewer: internalActor(id) });
  if (user === undefined) throw userNotFound(String(id));
  return user;
}

/** The whole account with that current name (case-insensitive); NOT_FOUND (reason user_not_found) when none. */
export async function accountByName(context: ReposContext, name: string, asId: number): Promise<User> {
  try {
    const { user } = await context.accounts.users.getUser({ username: name, viewer: internalActor(asId) });
    if (user === undefined) throw userNotFound(name);
    return user;
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) throw userNotFound(name);
    throw error;
  }
}

/** What `name` stands for as the viewer may see it (accounts' ResolveName: NOT_FOUND when hidden or unknown). */
export async function resolveName(context: ReposContext, name: string, viewer: Viewer): Promise<ResolveNameResponse> {
  return context.accounts.users.resolveName({ name, viewer: actorOf(viewer) });
}
