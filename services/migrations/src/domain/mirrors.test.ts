import { CairnError, Code } from '@cairn/rpc';
import { assertMirrorsEnabled, assertNewPushMirrorAllowed, newRemoteName, parsePushAddress, pullMirrorIntervalMs, pushMirrorInterval } from './mirrors';

const MIN = 10 * 60_000;

function thrown(run: () => unknown): CairnError {
  try {
    run();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('pushMirrorInterval', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['10m', MIN],
    ['8h', 8 * 3_600_000],
    ['1h30m', 90 * 60_000],
  ])('takes %s', (text, ms) => {
    expect(pushMirrorInterval(text, MIN)).toBe(ms);
  });

  it('refuses an interval below the minimum with Gitea-style text', () => {
    expect(thrown(() => pushMirrorInterval('5m', MIN))).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'invalid push mirror interval: 5m0s is below minimum interval: 10m0s',
    });
  });

  it.each(['', 'soon', '10', '-1h', '1d'])('refuses the malformed %p', (text) => {
    expect(thrown(() => pushMirrorInterval(text, MIN))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: `time: invalid duration "${text}"` });
  });
});

describe('parsePushAddress', () => {
  it('takes credentials out of the address', () => {
    expect(parsePushAddress('https://u:p@example.com/o/r.git', '', '')).toEqual({ url: 'https://example.com/o/r.git', host: 'example.com', username: 'u', password: 'p' });
    expect(parsePushAddress('https://example.com/o/r.git', 'form', 'secret')).toMatchObject({ username: 'form', password: 'secret' });
  });

  it('answers a local path with Permission denied (Gitea 401) and a bad address with 400 texts', () => {
    expect(thrown(() => parsePushAddress('/srv/git/r.git', '', ''))).toMatchObject({ code: Code.PERMISSION_DENIED, reason: 'host_refused', message: 'Permission denied' });
    expect(thrown(() => parsePushAddress('ssh://example.com/r.git', '', ''))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid mirror protocol' });
    expect(thrown(() => parsePushAddress('http://[bad/r.git', '', ''))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'Invalid Url ' });
  });
});

describe('settings', () => {
  const mirror = (enabled: boolean, disableNewPush = false) => ({ mirror: { enabled, disableNewPull: false, disableNewPush, minInterval: MIN, defaultInterval: 8 * 3_600_000 } });

  it('refuses everything while mirrors are disabled, and new push mirrors with DISABLE_NEW_PUSH', () => {
    expect(thrown(() => assertMirrorsEnabled(mirror(false)))).toMatchObject({ code: Code.FAILED_PRECONDITION, message: 'Mirror feature is disabled' });
    expect(() => assertMirrorsEnabled(mirror(true, true))).not.toThrow();
    expect(thrown(() => assertNewPushMirrorAllowed(mirror(true, true)))).toMatchObject({ reason: 'mirrors_disabled' });
    expect(() => assertNewPushMirrorAllowed(mirror(true))).not.toThrow();
  });
});

describe('names and intervals', () => {
  it('names remotes remote_mirror_ and 10 alphanumerics, each new', () => {
    const names = new Set(Array.from({ length: 50 }, () => newRemoteName()));
    expect(names.size).toBe(50);
    for (const name of names) expect(name).toMatch(/^remote_mirror_[A-Za-z0-9]{10}$/);
  });

  it("reads repos' interval, the default when none", () => {
    expect(pullMirrorIntervalMs('8h0m0s', 1)).toBe(8 * 3_600_000);
    expect(pullMirrorIntervalMs('0s', 1)).toBe(0);
    expect(pullMirrorIntervalMs('', 42)).toBe(42);
  });
});
