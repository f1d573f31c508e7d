/**
 * Sweeps stray restore archives: one stored for a restore whose task was never inserted (the service died in
 * between; the CLI saw the call fail) or whose delete failed when its task ended. restore_archives records every
 * archive before its first byte is stored, so what no queued or running task reads and nobody touched for an hour is
 * deleted, then forgotten. Replicas may sweep side by side: deleting an object twice is harmless.
 */
import type { MigrationsContext } from '../rpc/context';
import { forgetArchive, strayArchives } from '../store/restore-archives';

/** An archive this long untouched is no upload in progress (one is touched every ARCHIVE_TOUCH_MS while it arrives). */
export const STRAY_ARCHIVE_MS = 60 * 60_000;
const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 100;

/** Deletes up to BATCH stray archives; answers how many went. */
export async function sweepRestoreArchives(context: MigrationsContext, olderThanMs = STRAY_ARCHIVE_MS): Promise<number> {
  const objects = context.objects;
  if (objects === undefined) return 0;
  let swept = 0;
  for (const key of await strayArchives(context.db.pool, olderThanMs, BATCH)) {
    await objects.delete(key);
    await forgetArchive(context.db.pool, key);
    swept++;
  }
  return swept;
}

/** Drops an ended task's archive, forgetting it once it is gone (a failed delete is left to the sweep). */
export async function dropArchive(context: MigrationsContext, key: string): Promise<void> {
  if (key === '' || context.objects === undefined) return;
  try {
    await context.objects.delete(key);
    await forgetArchive(context.db.pool, key);
  } catch (error) {
    context.logger.warn({ err: error, archive: key }, 'deleting a restore archive failed; the sweep deletes it later');
  }
}

/** Sweeps every `everyMs`; stop() waits for a sweep under way (the pool closes after it). */
export function startArchiveSweep(context: MigrationsContext, everyMs = SWEEP_EVERY_MS): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweepRestoreArchives(context)
      .then((swept) => {
        if (swept > 0) context.logger.info({ swept }, 'stray restore archives deleted');
      })
      .catch((error: unknown) => context.logger.warn({ err: error }, 'sweeping restore archives failed'))
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
