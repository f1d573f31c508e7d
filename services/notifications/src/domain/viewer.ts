/** Who asks, as the gateway authenticated them and passes them in an RPC's `Actor viewer` (@cairn/rpc's viewer). */
import { isSignedIn, type Viewer } from '@cairn/rpc';

export { ANONYMOUS, type Viewer, actorOf, isSignedIn, viewerFromActor } from '@cairn/rpc';

export function isSiteAdmin(viewer: Viewer): boolean {
  return isSignedIn(viewer) && viewer.isAdmin;
}
