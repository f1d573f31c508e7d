import { Code } from '@cairn/rpc';
import { PASSWORD_CHECKS_BUSY_REASON, PasswordCheckQueue } from './password-queue';

/** A check that finishes when told to. */
function gate(): { promise: Promise<string>; open: (value: string) => void } {
  let open!: (value: string) => void;
  const promise = new Promise<string>((resolve) => (open = resolve));
  return { promise, open };
}

describe('PasswordCheckQueue', () => {
  it('runs at most `concurrency` checks at once, queues `maxQueued`, refuses the rest at once', async () => {
    const queue = new PasswordCheckQueue(2, 1);
    const gates = [gate(), gate(), gate()];
    let started = 0;
    const runs = gates.map((g) =>
      queue.run(() => {
        started++;
        return g.promise;
      }),
    );
    expect(started).toBe(2);
    const refused = queue.run(async () => 'never');
    await expect(refused).rejects.toMatchObject({
      code: Code.RESOURCE_EXHAUSTED,
      reason: PASSWORD_CHECKS_BUSY_REASON,
      retryAfterSeconds: 1,
    });
    gates[0].open('a');
    await expect(runs[0]).resolves.toBe('a');
    // The queued check takes the freed turn.
    await Promise.resolve();
    expect(started).toBe(3);
    gates[1].open('b');
    gates[2].open('c');
    await expect(Promise.all(runs)).resolves.toEqual(['a', 'b', 'c']);
    // All turns are back: two new checks start at once again.
    const again = [gate(), gate()];
    const more = again.map((g) => queue.run(() => g.promise));
    again.forEach((g, i) => g.open(String(i)));
    await expect(Promise.all(more)).resolves.toEqual(['0', '1']);
  });

  it('drops a waiting check whose caller gave up, without running it', async () => {
    const queue = new PasswordCheckQueue(1, 1);
    const first = gate();
    const running = queue.run(() => first.promise);
    const abandon = new AbortController();
    let ran = false;
    const waiting = queue.run(async () => {
      ran = true;
      return 'late';
    }, abandon.signal);
    abandon.abort();
    await expect(waiting).rejects.toMatchObject({ code: Code.CANCELLED });
    // Its place is free again: another check may wait.
    const next = queue.run(async () => 'next');
    first.open('first');
    await expect(running).resolves.toBe('first');
    await expect(next).resolves.toBe('next');
    expect(ran).toBe(false);
  });

  it('gives the turn back when a check fails', async () => {
    const queue = new PasswordCheckQueue(1, 0);
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run(async () => 'ok')).resolves.toBe('ok');
  });
});
