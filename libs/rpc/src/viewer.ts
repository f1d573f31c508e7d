/** Who an RPC acts for: the `Actor viewer` the gateway passes, as the services' rules take it. */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';

/** `id` 0 is an anonymous caller. */
export interface Viewer {
  id: number;
  isAdmin: boolean;
  isRestricted: boolean;
}

export const ANONYMOUS: Viewer = Object.freeze({ id: 0, isAdmin: false, isRestricted: false });

/** The viewer an RPC's `Actor viewer` field describes; an unset actor is anonymous. */
export function viewerFromActor(actor: Actor | undefined): Viewer {
  if (actor === undefined || actor.userId <= 0) return ANONYMOUS;
  return { id: actor.userId, isAdmin: actor.isAdmin, isRestricted: actor.isRestricted };
}

export function isSignedIn(viewer: Viewer): boolean {
  return viewer.id > 0;
}

/** The `Actor` to pass on when asking another service on the viewer's behalf; anonymous is an unset actor. */
export function actorOf(viewer: Viewer): Actor | undefined {
  return isSignedIn(viewer) ? { userId: viewer.id, isAdmin: viewer.isAdmin, isRestricted: viewer.isRestricted } : undefined;
}
