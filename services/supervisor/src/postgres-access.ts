/**
 * PostgreSQL refuses to run as root, so when Cairn runs as root (a container) the embedded server runs as
 * the `postgres` user. That user must be able to walk down to the data directory and own it once it holds
 * data; otherwise initdb and postgres fail with a bare EACCES. These checks turn that into a message that
 * names the directory and the permission to give.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The operating-system user the embedded server runs as; uid/gid undefined when it does not exist yet. */
export interface OsUser {
  name: string;
  uid: number | undefined;
  gid: number | undefined;
}

export interface DirectoryInfo {
  path: string;
  mode: number;
  uid: number;
  gid: number;
}

/** Execute (search) permission of `user` on a directory, by the owner / group / others bits. */
function permissionClass(user: OsUser, dir: DirectoryInfo): { bit: number; who: string; letter: 'u' | 'g' | 'o' } {
  if (user.uid !== undefined && dir.uid === user.uid) return { bit: 0o100, who: 'its owner', letter: 'u' };
  if (user.gid !== undefined && dir.gid === user.gid) return { bit: 0o010, who: 'its group', letter: 'g' };
  return { bit: 0o001, who: 'others', letter: 'o' };
}

/**
 * What stops `user` from using `dataDir`, as one sentence, or undefined when nothing does.
 * `ancestors` are the existing directories from `/` down to the data directory's parent; `dataDirInfo` is
 * the data directory itself when it already holds a cluster (then the user must own it).
 */
export function findAccessProblem(
  user: OsUser,
  dataDir: string,
  ancestors: DirectoryInfo[],
  initialisedDataDir: DirectoryInfo | undefined,
): string | undefined {
  const runsAs = `the embedded PostgreSQL runs as user "${user.name}"`;
  const closed = closedDirectory(user, ancestors);
  if (closed !== undefined) return `${runsAs} and cannot reach ${dataDir}: ${closed}, or set CAIRN_WORK_DIR to a directory that user can reach`;
  if (initialisedDataDir !== undefined && (user.uid === undefined || initialisedDataDir.uid !== user.uid)) {
    const owner = `it belongs to uid ${initialisedDataDir.uid}`;
    if (user.uid === undefined) {
      return `${runsAs}, which does not exist on this system, but ${dataDir} already holds its data (${owner}): create the user and give it the directory (useradd ${user.name} && chown -R ${user.name} ${dataDir})`;
    }
    return `${runsAs} and cannot write ${dataDir}: ${owner}; give it to that user (chown -R ${user.name} ${dataDir})`;
  }
  return undefined;
}

/**
 * What stops `user` from running the server's programs in `programDir` (initdb, postgres; spawning them as that
 * user fails with a bare EACCES), as one sentence, or undefined when nothing does. `ancestors` are the existing
 * directories from `/` down to `programDir` itself: a checkout under root's 0700 home is the usual case.
 */
export function findProgramAccessProblem(user: OsUser, programDir: string, ancestors: DirectoryInfo[]): string | undefined {
  const closed = closedDirectory(user, ancestors);
  if (closed === undefined) return undefined;
  return `the embedded PostgreSQL runs as user "${user.name}" and cannot run its programs in ${programDir}: ${closed}, or run Cairn from a checkout that user can reach, or set [database] URL to a PostgreSQL server`;
}

/** The fix for the first of `ancestors` that `user` may not search, or undefined when it may search them all. */
function closedDirectory(user: OsUser, ancestors: DirectoryInfo[]): string | undefined {
  for (const dir of ancestors) {
    const { bit, who, letter } = permissionClass(user, dir);
    if ((dir.mode & bit) === 0) return `give ${who} execute permission on ${dir.path} (chmod ${letter}+x ${dir.path})`;
  }
  return undefined;
}

/** Every directory from the root down to (not including) `target`, for the ones that exist. */
export function statAncestors(target: string): DirectoryInfo[] {
  const result: DirectoryInfo[] = [];
  let current = path.dirname(path.resolve(target));
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const dir of chain) {
    const info = statDirectory(dir);
    if (info !== undefined) result.push(info);
  }
  return result;
}

/** The directory's owner and mode; undefined when it does not exist (yet). Any other failure is thrown. */
export function statDirectory(dir: string): DirectoryInfo | undefined {
  try {
    const stat = fs.statSync(dir);
    return { path: dir, mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
