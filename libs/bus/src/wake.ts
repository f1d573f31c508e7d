/**
 * A sleep that can be cut short: loops wait on it between polls, and a notification (or a local
 * publish) wakes them at once. A wake while the loop is busy is remembered, so it is never lost.
 */
export interface Waker {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

export function createWaker(): Waker {
  let pending = false;
  let resolveSleep: (() => void) | undefined;
  return {
    sleep(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          resolveSleep = undefined;
          resolve();
        }
        resolveSleep = done;
      });
    },
    wake() {
      if (resolveSleep) resolveSleep();
      else pending = true;
    },
  };
}

/** A plain delay that does not keep the process alive. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });
}
