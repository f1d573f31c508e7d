/**
 * What a fetch from a remote changes (RemoteService.FetchRemote): the remote's branches and tags, as fetched into a
 * staging namespace, against the repository's. Forced (Gitea's mirror refspecs `+refs/heads/*:refs/heads/*`,
 * `+refs/tags/*:refs/tags/*`); with `prune`, a branch or tag the remote no longer has is deleted.
 */
import type { RefUpdate } from '../git/ref-update';
import { ZERO_SHA } from '../git/refs';
import type { RefState } from './published-refs';

export function remoteRefUpdates(local: RefState, remote: RefState, prune: boolean): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const [ref, newSha] of Object.entries(remote)) {
    const oldSha = Object.hasOwn(local, ref) ? local[ref] : ZERO_SHA;
    if (oldSha !== newSha) updates.push({ ref, oldSha, newSha });
  }
  if (prune) for (const [ref, oldSha] of Object.entries(local)) if (!Object.hasOwn(remote, ref)) updates.push({ ref, oldSha, newSha: ZERO_SHA });
  return updates;
}
