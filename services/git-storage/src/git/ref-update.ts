/**
 * Moving refs: every move is a compare-and-swap in one `git update-ref --stdin` transaction, so a ref that changed
 * since it was read (a concurrent push or API call) makes the whole move fail instead of losing the other write.
 */
import { runGit } from './command';
import { ZERO_SHA } from './refs';

/** One ref move, as cairn.git.pushed reports it: ZERO_SHA as `oldSha` creates, as `newSha` deletes. */
export interface RefUpdate {
  /** Full name (`refs/heads/main`). */
  ref: string;
  oldSha: string;
  newSha: string;
}

export interface RefUpdateResult {
  ok: boolean;
  /** git's complaint when not ok (a stale old value, a name conflict such as `a` vs `a/b`). */
  stderr: string;
}

/** A ref that must hold `sha` for a move to happen, though the move leaves it alone. */
export interface RefVerify {
  ref: string;
  sha: string;
}

/**
 * Applies every update or none. Not ok when any ref's current value is not its `oldSha`, or a `verify` ref's is not
 * its `sha` (checked under the same locks, so nothing can move it in between).
 */
export async function updateRefs(gitDir: string, updates: readonly RefUpdate[], verify: readonly RefVerify[] = []): Promise<RefUpdateResult> {
  // `update SP <ref> NUL <new> NUL <old> NUL` (-z): a zero new value deletes, a zero old value requires absence;
  // `verify SP <ref> NUL <old> NUL` only checks.
  const input =
    verify.map((check) => `verify ${check.ref}\0${check.sha}\0`).join('') +
    updates.map((update) => `update ${update.ref}\0${update.newSha}\0${update.oldSha}\0`).join('');
  const { exitCode, stderr } = await runGit(['update-ref', '-z', '--stdin'], { gitDir, stdin: input, okExitCodes: [0, 1, 128] });
  return { ok: exitCode === 0, stderr: stderr.trim() };
}

export const refCreated = (ref: string, newSha: string): RefUpdate => ({ ref, oldSha: ZERO_SHA, newSha });
export const refDeleted = (ref: string, oldSha: string): RefUpdate => ({ ref, oldSha, newSha: ZERO_SHA });
