/** Repository access levels as repos' Permission names them, and comparing them. */

/** Access levels, lowest first, as repos' Permission names them. */
export type RepoAccessMode = 'read' | 'write' | 'admin' | 'owner';

const MODE_RANKS: Readonly<Record<string, number>> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

/** `mode` (a Permission level: none, read, write, admin, owner) is at least `wanted`. */
export function accessAtLeast(mode: string | undefined, wanted: RepoAccessMode): boolean {
  return (MODE_RANKS[mode ?? 'none'] ?? 0) >= MODE_RANKS[wanted];
}
