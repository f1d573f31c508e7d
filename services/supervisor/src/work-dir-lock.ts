/**
 * One process at a time owns a work dir's embedded database and runtime file: a supervisor, or the CLI
 * when it works on the database directly. The lock is `$CAIRN_WORK_DIR/run/cairn.lock`, holding the
 * owner's pid and start time; a lock whose process is gone (killed) is taken over.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFileIfExists } from './files';
import { isSameProcessAlive, processIdentity, type ProcessIdentity } from './processes';

export type LockRole = 'supervisor' | 'cli';

export interface LockHolder extends ProcessIdentity {
  role: LockRole;
  /** ISO time the lock was taken. */
  since: string;
}

export interface WorkDirLock {
  holder: LockHolder;
  /** Removes the lock if it is still ours. */
  release(): void;
}

export function runDir(workDir: string): string {
  return path.join(workDir, 'run');
}

export function lockPath(workDir: string): string {
  return path.join(runDir(workDir), 'cairn.lock');
}

/** The holder in a lock file's text; undefined for text that is not one (a lock half-written by a killed process). */
export function parseLockHolder(text: string): LockHolder | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, startTicks, role, since } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || (role !== 'supervisor' && role !== 'cli')) return undefined;
    return {
      pid,
      role,
      since: typeof since === 'string' ? since : '',
      ...(typeof startTicks === 'string' ? { startTicks } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The holder named in the lock file; undefined when there is none or it is half-written. A file that cannot be read throws. */
function readHolder(file: string): LockHolder | undefined {
  const text = readFileIfExists(file);
  return text === undefined ? undefined : parseLockHolder(text);
}

/** Takes the lock, or reports the live process that holds it. */
export function tryAcquireWorkDirLock(workDir: string, role: LockRole): { lock: WorkDirLock } | { heldBy: LockHolder } {
  const file = lockPath(workDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const holder: LockHolder = { ...processIdentity(), role, since: new Date().toISOString() };
  const content = JSON.stringify(holder);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // 'wx' fails if the file exists: creating it is the atomic test-and-set.
      fs.writeFileSync(file, content, { flag: 'wx', mode: 0o644 });
      return {
        lock: {
          holder,
          release: () => {
            if (readHolder(file)?.pid === holder.pid) fs.rmSync(file, { force: true });
          },
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readHolder(file);
    if (current !== undefined && isSameProcessAlive(current)) return { heldBy: current };
    // Left behind by a process that was killed (or half-written): take it over.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take the lock ${file}`);
}

/** How a lock holder is named in messages. */
export function describeHolder(holder: LockHolder): string {
  return holder.role === 'supervisor' ? `a running cairn (pid ${holder.pid})` : `a cairn command (pid ${holder.pid})`;
}
