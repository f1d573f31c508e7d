/**
 * Per-repository concurrency limit (CONVENTIONS: upload-pack): at most `limit` operations run on one repository
 * at a time, up to `maxQueued` more wait their turn, and beyond that callers are told to come back later
 * (RESOURCE_EXHAUSTED, HTTP 429), so one busy repository cannot take every CPU of the node.
 */
import { CairnError, Code } from '@cairn/rpc';

interface Slot {
  running: number;
  waiting: (() => void)[];
}

export class ConcurrencyLimit {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly limit: number,
    private readonly maxQueued: number,
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
        throw new CairnError(Code.RESOURCE_EXHAUSTED, 'too many concurrent requests for this repository, try again later', {
          reason: 'repository_busy',
        });
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
        reject(new CairnError(Code.CANCELLED, 'cancelled while waiting for the repository'));
      };
      if (signal.aborted) {
        reject(new CairnError(Code.CANCELLED, 'cancelled while waiting for the repository'));
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
