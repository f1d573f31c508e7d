/** A file's stat, or undefined when nothing is there; any other failure (permissions, I/O, a symlink loop) is an error. */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

/** The codes that mean "nothing at this path": missing, or a path through something that is not a directory. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

export async function statIfExists(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch (error) {
    // Only absence is an answer: a disk or permission error must not read as "no such repository" (a 404).
    if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}
