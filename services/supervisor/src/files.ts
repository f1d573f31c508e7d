/** Reading the supervisor's small state files (the lock, the runtime file, postmaster.pid). */
import * as fs from 'node:fs';

/**
 * The file's text, or undefined when it does not exist (the one benign case: never written, or removed
 * meanwhile). Any other failure (permissions, a directory, a symlink loop, a disk error) is an error naming the
 * file: reading it as "no file" would take a live lock over or miss a running server.
 */
export function readFileIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).message}`, { cause: error });
  }
}
