/** Runs a maintenance sweep at start-up and then every `pollMs` until stopped (the purgers' loop). */
export interface PeriodicSweep {
  /** Stops the loop; waits for the sweep in hand. */
  stop(): Promise<void>;
}

/** `sweep` must not throw: it logs its own failures and leaves what it could not do to the next round. */
export function startPeriodicSweep(sweep: () => Promise<void>, pollMs: number): PeriodicSweep {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = () => {
    running = sweep().finally(() => {
      running = undefined;
      if (!stopped) timer = setTimeout(run, pollMs);
    });
  };
  run();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
