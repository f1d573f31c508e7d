import { startClaimLoop } from './claim-loop';

/** A queue of jobs the loop claims from, and jobs that finish when the test says. */
function harness(concurrency: number, reserved = () => 0) {
  const due: number[] = [];
  const claims: number[] = [];
  const running = new Map<number, () => void>();
  const done: number[] = [];
  const loop = startClaimLoop<number>({
    claim: async (room) => {
      claims.push(room);
      return due.splice(0, room);
    },
    run: (job) =>
      new Promise<void>((resolve) =>
        running.set(job, () => {
          running.delete(job);
          done.push(job);
          resolve();
        }),
      ),
    concurrency,
    pollIntervalMs: 3_600_000,
    reserved,
    onClaimError: (error) => {
      throw error;
    },
    onRunError: (error) => {
      throw error;
    },
  });
  return { due, claims, running, done, loop };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('startClaimLoop', () => {
  it('claims no more than its room, and claims again as jobs finish', async () => {
    const h = harness(2);
    await settle();
    h.due.push(1, 2, 3);
    h.loop.wake();
    await settle();
    expect([...h.running.keys()]).toEqual([1, 2]);
    expect(h.loop.room()).toBe(0);
    h.running.get(1)?.();
    await settle();
    await settle();
    expect([...h.running.keys()]).toEqual([2, 3]);
    h.running.get(2)?.();
    h.running.get(3)?.();
    await h.loop.stop();
    expect(h.done).toEqual([1, 2, 3]);
  });

  it('leaves reserved slots free and counts jobs handed over with start()', async () => {
    let reserved = 1;
    const h = harness(3, () => reserved);
    await settle();
    expect(h.loop.room()).toBe(2);
    h.loop.start(10);
    expect(h.loop.room()).toBe(1);
    reserved = 0;
    h.due.push(1, 2, 3);
    h.loop.wake();
    await settle();
    expect([...h.running.keys()]).toEqual([10, 1, 2]);
    for (const finish of [...h.running.values()]) finish();
    await settle();
    await settle();
    expect([...h.running.keys()]).toEqual([3]);
    h.running.get(3)?.();
    await h.loop.stop();
  });

  it('waits for the jobs in flight on stop, then takes nothing more', async () => {
    const h = harness(2);
    await settle();
    h.due.push(1);
    h.loop.wake();
    await settle();
    const stopped = h.loop.stop();
    h.loop.start(2);
    expect(h.loop.room()).toBe(0);
    h.running.get(1)?.();
    await stopped;
    expect(h.done).toEqual([1]);
    expect(h.running.size).toBe(0);
  });
});
