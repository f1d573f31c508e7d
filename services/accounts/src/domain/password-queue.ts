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

  /** Runs `check` when a turn is free; refuses without running it when the queue is full. */
  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) {
      this.running++;
    } else {
      if (this.waiting.length >= this.maxQueued) {
        throw new CairnError(Code.RESOURCE_EXHAUSTED, 'too many password checks in progress, try again later', {
          reason: PASSWORD_CHECKS_BUSY_REASON,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
      // The finishing check hands its turn over (release), so `running` stays counted and nobody slips in between.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await check();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running--;
  }
}
