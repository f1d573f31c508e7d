/**
 * A worker over leased jobs kept in PostgreSQL (webhook deliveries, mail): it claims as many due jobs as it has room
 * for, runs them side by side, and claims again as they finish; `wake()` makes it look now (the caller committed new
 * jobs), a poll is the backstop (another replica's jobs, retries coming due, a lost wake). What a claim is and how a
 * job runs are the caller's: this holds only the loop, so the services that lease work share one.
 */
export interface ClaimLoopOptions<J> {
  /** Claims up to `room` due jobs (leased, so that no other worker runs them meanwhile). */
  claim(room: number): Promise<readonly J[]>;
  /** Runs one claimed job to its recorded outcome; a rejection is reported to onRunError. */
  run(job: J): Promise<void>;
  /** Jobs run at once by this worker. */
  concurrency: number;
  pollIntervalMs: number;
  /** Slots held for jobs the caller will hand over with start(); the claims leave them free. */
  reserved?: () => number;
  onClaimError(error: unknown): void;
  onRunError(error: unknown, job: J): void;
}

export interface ClaimLoop<J> {
  /** Claims now instead of at the next poll. */
  wake(): void;
  /** Runs a job the caller claimed itself (counted in flight like the loop's own); ignored once stopping. */
  start(job: J): void;
  /** Slots free now: concurrency less the jobs in flight and the reserved slots; 0 once stopping. */
  room(): number;
  /** No new claims; resolves once the claim and the jobs in flight have ended. */
  stop(): Promise<void>;
}

export function startClaimLoop<J>(options: ClaimLoopOptions<J>): ClaimLoop<J> {
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let claiming: Promise<void> | undefined;
  let claimAgain = false;

  const room = (): number => (stopping ? 0 : Math.max(0, options.concurrency - inFlight.size - (options.reserved?.() ?? 0)));

  function start(job: J): void {
    if (stopping) return;
    const running: Promise<void> = options
      .run(job)
      .catch((error: unknown) => options.onRunError(error, job))
      .finally(() => {
        inFlight.delete(running);
        pump();
      });
    inFlight.add(running);
  }

  const claim = async (): Promise<void> => {
    do {
      claimAgain = false;
      const free = room();
      if (free === 0) return;
      const jobs = await options.claim(free);
      for (const job of jobs) start(job);
      // A full claim may have left more behind.
      if (jobs.length === free) claimAgain = true;
    } while (claimAgain);
  };

  function pump(): void {
    if (stopping) return;
    if (claiming !== undefined) {
      claimAgain = true;
      return;
    }
    claiming = claim()
      .catch((error: unknown) => options.onClaimError(error))
      .finally(() => {
        claiming = undefined;
        // A wake that came as the last claim ended.
        if (claimAgain) pump();
      });
  }

  const timer = setInterval(pump, options.pollIntervalMs);
  timer.unref();
  pump();

  return {
    wake: pump,
    start,
    room,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await claiming;
      await Promise.all(inFlight);
    },
  };
}
