/** mapLimit: bounded concurrency, results in order, the first failure thrown once the started items have settled. */
import { mapLimit } from './map-limit';

/** A promise settled from outside, to choose the order in which items finish. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('mapLimit', () => {
  it('keeps the items’ order whatever order they finish in, with at most `limit` running', async () => {
    const gates = Array.from({ length: 7 }, () => deferred<void>());
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const done = mapLimit([10, 11, 12, 13, 14, 15, 16], 3, async (item, index) => {
      started.push(index);
      running++;
      most = Math.max(most, running);
      await gates[index].promise;
      running--;
      return item * 2;
    });
    await settle();
    expect(started).toEqual([0, 1, 2]);
    // Finishing out of order starts the next items, one per finished item.
    gates[2].resolve();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const index of [6, 5, 4, 3, 1, 0]) {
      gates[index].resolve();
      await settle();
    }
    expect(await done).toEqual([20, 22, 24, 26, 28, 30, 32]);
    expect(most).toBe(3);
  });

  it('throws the first failure after the started items have settled, and starts no more', async () => {
    const gates = Array.from({ length: 5 }, () => deferred<string>());
    const started: number[] = [];
    const finished: number[] = [];
    let outcome: unknown;
    const done = mapLimit([0, 1, 2, 3, 4], 2, async (item) => {
      started.push(item);
      const value = await gates[item].promise;
      finished.push(item);
      return value;
    }).then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    await settle();
    gates[1].reject(new Error('item 1 failed'));
    await settle();
    // Item 0 is still running: the failure waits for it rather than leave it behind.
    expect(outcome).toBeUndefined();
    gates[0].resolve('zero');
    await done;
    expect(outcome).toEqual(new Error('item 1 failed'));
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([0]);
  });

  it('answers an empty list without calling, and refuses a limit that is not a positive integer', async () => {
    const map = jest.fn(async (item: number) => item);
    expect(await mapLimit([], 4, map)).toEqual([]);
    expect(map).not.toHaveBeenCalled();
    await expect(mapLimit([1], 0, map)).rejects.toThrow(RangeError);
    await expect(mapLimit([1], 1.5, map)).rejects.toThrow(RangeError);
  });
});
