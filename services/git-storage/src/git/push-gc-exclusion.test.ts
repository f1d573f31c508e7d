import { PushGcExclusion } from './push-gc-exclusion';

/** A gc that runs until its signal aborts, then takes a moment to exit (as git does), and records when it ended. */
function blockingGc(events: string[]) {
  return (signal: AbortSignal) =>
    new Promise<void>((_resolve, reject) => {
      signal.addEventListener('abort', () =>
        setTimeout(() => {
          events.push('gc exited');
          reject(new Error('killed'));
        }, 20),
      );
    });
}

const never = new AbortController().signal;

it('a push stops the gc running on its repository and starts only once that gc is gone', async () => {
  const exclusion = new PushGcExclusion();
  const events: string[] = [];
  const gc = exclusion.gc('/repos/1.git', never, blockingGc(events));
  const endPush = await exclusion.beginPush('/repos/1.git/');
  events.push('push started');
  expect(events).toEqual(['gc exited', 'push started']);
  await expect(gc).resolves.toBe('stopped_by_push');
  endPush();
});

it('gc leaves a repository with a push in flight for later, and runs there again once the push ended', async () => {
  const exclusion = new PushGcExclusion();
  const first = await exclusion.beginPush('/repos/1.git');
  const second = await exclusion.beginPush('/repos/1.git');
  const collect = jest.fn(() => Promise.resolve());
  await expect(exclusion.gc('/repos/1.git', never, collect)).resolves.toBe('skipped');
  // Another repository is not held up.
  await expect(exclusion.gc('/repos/2.git', never, collect)).resolves.toBe('collected');
  first();
  first(); // ending twice (exit, then the call's end) counts once
  await expect(exclusion.gc('/repos/1.git', never, collect)).resolves.toBe('skipped');
  second();
  await expect(exclusion.gc('/repos/1.git', never, collect)).resolves.toBe('collected');
  expect(collect).toHaveBeenCalledTimes(2);
});

it('a gc failing or stopped by the sweep is reported as such, not as stopped by a push', async () => {
  const exclusion = new PushGcExclusion();
  await expect(exclusion.gc('/repos/1.git', never, () => Promise.reject(new Error('corrupt')))).rejects.toThrow('corrupt');
  const sweep = new AbortController();
  const events: string[] = [];
  const gc = exclusion.gc('/repos/1.git', sweep.signal, blockingGc(events));
  sweep.abort();
  await expect(gc).rejects.toThrow('killed');
  // Nothing left behind: a push does not wait for anything.
  const endPush = await exclusion.beginPush('/repos/1.git');
  expect(events).toEqual(['gc exited']);
  endPush();
});
