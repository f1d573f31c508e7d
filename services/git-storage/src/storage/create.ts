/**
 * Creating a repository directory atomically: the repository is built in a scratch directory beside its final
 * place and renamed into it, so a half-made repository is never visible and two creations of the same id
 * cannot both succeed.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { CairnError, Code } from '@cairn/rpc';
import { statIfExists } from './stat-if-exists';

function alreadyExists(): CairnError {
  return CairnError.exists('repository already exists on disk', { reason: 'repository_exists' });
}

/**
 * Runs `build(scratchDir)` and moves the result to `gitDir`. ALREADY_EXISTS when `gitDir` exists. Once `signal` is
 * aborted (the caller's deadline passed, or it went away) nothing is moved into place: the caller has given up on
 * the repository and will not record it, so a directory made now would belong to no repository.
 */
export async function createRepositoryDir(gitDir: string, signal: AbortSignal, build: (scratchDir: string) => Promise<void>): Promise<void> {
  if ((await statIfExists(gitDir)) !== undefined) throw alreadyExists();
  const parent = path.dirname(gitDir);
  await mkdir(parent, { recursive: true });
  const scratch = path.join(parent, `.creating-${path.basename(gitDir)}-${randomBytes(6).toString('hex')}`);
  try {
    await build(scratch);
    if (signal.aborted) throw new CairnError(Code.CANCELLED, 'the caller gave up on the repository before it was made');
    await rename(scratch, gitDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') throw alreadyExists();
      throw error;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
