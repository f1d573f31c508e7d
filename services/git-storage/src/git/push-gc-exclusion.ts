/**
 * Pushes and gc on one repository kept apart. At its end receive-pack moves a push's objects out of the quarantine
 * directory (git's tmp-objdir.c migrate_one: mkdir `objects/xx`, then link each object into it), while gc's
 * prune-packed removes the object directories it emptied (prune-packed.c prune_subdir: rmdir). When the rmdir falls
 * between the two, the push fails with "unable to migrate objects to permanent storage". So a push stops a gc running
 * on its repository and waits for it to be gone (gc is safe to stop anywhere; the next sweep runs it again), and gc
 * leaves a repository with a push in flight to the next sweep. One git-storage node owns its repositories, so an
 * in-process record is enough.
 */
import path from 'node:path';

interface RunningGc {
  stop: AbortController;
  done: Promise<void>;
}

export type GcOutcome = 'collected' | 'skipped' | 'stopped_by_push';

export class PushGcExclusion {
  private readonly pushes = new Map<string, number>();
  private readonly gcs = new Map<string, RunningGc>();

  /** Marks a push on `gitDir` as running (stopping its gc first); call the returned function when git exited. */
  async beginPush(gitDir: string): Promise<() => void> {
    const key = path.resolve(gitDir);
    this.pushes.set(key, (this.pushes.get(key) ?? 0) + 1);
    const gc = this.gcs.get(key);
    if (gc !== undefined) {
      gc.stop.abort();
      await gc.done;
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.pushes.get(key) ?? 1) - 1;
      if (left === 0) this.pushes.delete(key);
      else this.pushes.set(key, left);
    };
  }

  /**
   * Runs `collect` on `gitDir` unless a push is in flight there. Its signal aborts when `signal` does or a push
   * begins; a collection a push stopped is `stopped_by_push`, not a failure.
   */
  async gc(gitDir: string, signal: AbortSignal, collect: (signal: AbortSignal) => Promise<unknown>): Promise<GcOutcome> {
    const key = path.resolve(gitDir);
    if (this.pushes.has(key)) return 'skipped';
    const stop = new AbortController();
    const running = collect(AbortSignal.any([signal, stop.signal]));
    // Settles only once the collection (its processes) is over, whatever its outcome: what a push waits for.
    const done = running.then(
      () => undefined,
      () => undefined,
    );
    this.gcs.set(key, { stop, done });
    try {
      await running;
      return 'collected';
    } catch (error) {
      if (stop.signal.aborted && !signal.aborted) return 'stopped_by_push';
      throw error;
    } finally {
      this.gcs.delete(key);
    }
  }
}
