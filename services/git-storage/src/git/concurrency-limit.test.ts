import { Code } from '@cairn/rpc';
import { ConcurrencyLimit } from './concurrency-limit';

const signal = () => new AbortController().signal;

describe('ConcurrencyLimit', () => {
  it('lets `limit` holders in, queues the next ones in order, and refuses beyond the queue', async () => {
    const limit = new ConcurrencyLimit(2, 1);
    const first = await limit.acquire('repo', signal());
    await limit.acquire('repo', signal());
    let third: (() => void) | undefined;
    const waiting = limit.acquire('repo', signal()).then((release) => (third = release));
    await expect(limit.acquire('repo', signal())).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED, reason: 'repository_busy' });
    // Other keys are independent.
    await limit.acquire('other', signal());
    expect(third).toBeUndefined();
    first();
    await waiting;
    expect(third).toBeDefined();
    // The released turn went to the waiter: the limit still holds.
    const queued = limit.acquire('repo', signal());
    let fifth = false;
    void queued.then(() => (fifth = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fifth).toBe(false);
    third?.();
    await queued;
  });

  it('gives up waiting when the signal aborts', async () => {
    const limit = new ConcurrencyLimit(1, 5);
    const release = await limit.acquire('repo', signal());
    const abort = new AbortController();
    const waiting = limit.acquire('repo', abort.signal);
    abort.abort();
    await expect(waiting).rejects.toMatchObject({ code: Code.CANCELLED });
    release();
    // The aborted waiter left the queue: the next caller gets in at once.
    await limit.acquire('repo', signal());
  });

  it('ignores a second release', async () => {
    const limit = new ConcurrencyLimit(1, 0);
    const release = await limit.acquire('repo', signal());
    release();
    release();
    const again = await limit.acquire('repo', signal());
    await expect(limit.acquire('repo', signal())).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED });
    again();
  });

  it('tells a refused caller what the limit was built to say, and frees a turn released twice only once', async () => {
    const limit = new ConcurrencyLimit(1, 0, { message: 'the git server is busy, try again later', reason: 'git_storage_busy' });
    const release = await limit.acquire('node', signal());
    await expect(limit.acquire('node', signal())).rejects.toMatchObject({
      code: Code.RESOURCE_EXHAUSTED,
      message: 'the git server is busy, try again later',
      reason: 'git_storage_busy',
    });
    release();
    release();
    const again = await limit.acquire('node', signal());
    await expect(limit.acquire('node', signal())).rejects.toMatchObject({ reason: 'git_storage_busy' });
    again();
  });
});
