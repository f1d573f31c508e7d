/**
 * Bounds password hashing. scrypt runs in libuv's threadpool (4 threads unless UV_THREADPOOL_SIZE says
 * otherwise), which file system work and the rest of node:crypto share: a flood of password checks would
 * queue there without limit and stall everything else in the process. At most `concurrency` checks hash at
 * once, at most `maxQueued` more wait their turn (in order), and anything beyond is refused at once with
 * RESOURCE_EXHAUSTED (`password_checks_busy`, retry after 1 s), which the gateway answers as 503: the server is
 * momentarily out of capacity, not this client over its limit. Token and anonymous requests never come here.
 */
import { CairnError, Code } from '@cairn/rpc';

export const PASSWORD_CHECKS_BUSY_REASON = 'password_checks_busy';

/** A queued check waits for about (maxQueued / concurrency) × one hash (~50 ms): a second covers the default. */
const RETRY_AFTER_SECONDS = 1;

export class PasswordCheckQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxQueued: number,
  ) {}

  /**
   * Runs `check` when a turn is free; refuses without running it when the queue is full. A call abandoned while
   * it waits (`signal`: the caller went away or its deadline passed) leaves the queue without hashing.
   */
  async run<T>(check: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running < this.concurrency) {
      this.running++;
    } else {
      if (this.waiting.length >= this.maxQueued) {
        throw new CairnError(Code.RESOURCE_EXHAUSTED, 'too many password checks in progress, try again later', {
          reason: PASSWORD_CHECKS_BUSY_REASON,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
      await this.wait(signal);
    }
    try {
      return await check();
    } finally {
      this.release();
    }
  }

  /** Waits for a turn, which the finishing check hands over (release), so nobody slips in between. */
  private wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const cancelled = () => new CairnError(Code.CANCELLED, 'cancelled while waiting to check the password');
      if (signal?.aborted) {
        reject(cancelled());
        return;
      }
      const turn = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(cancelled());
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(turn);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running--;
  }
}
