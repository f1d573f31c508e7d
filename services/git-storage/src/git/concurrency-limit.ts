/**
 * Keyed concurrency limit: at most `limit` operations run per key at a time, up to `maxQueued` more wait their turn,
 * and beyond that callers are told at once to come back later (RESOURCE_EXHAUSTED, HTTP 429; Gitaly's
 * backpressure). Keyed by repository it stops one busy repository from taking every CPU of the node (CONVENTIONS:
 * upload-pack); under one key it bounds the whole node's transfers (`[git] MAX_CONCURRENT_TRANSFERS`).
 */
import { CairnError, Code } from '@cairn/rpc';

interface Slot {
  running: number;
  waiting: (() => void)[];
}

/** What a caller who finds the queue full is told. */
export interface Busy {
  message: string;
  reason: string;
}

const REPOSITORY_BUSY: Busy = { message: 'too many concurrent requests for this repository, try again later', reason: 'repository_busy' };

export class ConcurrencyLimit {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly limit: number,
    private readonly maxQueued: number,
    private readonly busy: Busy = REPOSITORY_BUSY,
  ) {}

  /** Waits for a turn on `key`; the answer releases it. */
  async acquire(key: string, signal: AbortSignal): Promise<() => void> {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { running: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.running < this.limit) {
      slot.running++;
    } else {
      if (slot.waiting.length >= this.maxQueued) {
        throw new CairnError(Code.RESOURCE_EXHAUSTED, this.busy.message, { reason: this.busy.reason });
      }
      // The releasing holder hands its turn over (release()), so nobody can slip in between.
      await this.wait(slot, signal);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key);
    };
  }

  private wait(slot: Slot, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', cancel);
        resolve();
      };
      const cancel = () => {
        slot.waiting.splice(slot.waiting.indexOf(turn), 1);
        reject(new CairnError(Code.CANCELLED, 'cancelled while waiting for a turn'));
      };
      if (signal.aborted) {
        reject(new CairnError(Code.CANCELLED, 'cancelled while waiting for a turn'));
        return;
      }
      signal.addEventListener('abort', cancel, { once: true });
      slot.waiting.push(turn);
    });
  }

  private release(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    const next = slot.waiting.shift();
    if (next !== undefined) {
      next();
      return;
    }
    slot.running--;
    if (slot.running === 0) this.slots.delete(key);
  }
}
