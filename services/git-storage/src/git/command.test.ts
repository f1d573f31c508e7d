import { once } from 'node:events';
import { Code } from '@cairn/rpc';
import { gitCommand, gitProcessLimits, runGit, setGitProcessLimits } from './command';

const defaults = gitProcessLimits();

afterEach(() => setGitProcessLimits(defaults));

describe('git process limits', () => {
  it('stops a process past its wall-clock limit, and says so', async () => {
    const started = Date.now();
    // `cat-file --batch` waits for stdin forever: only the limit ends it.
    const git = gitCommand(['cat-file', '--batch'], { timeoutMs: 300 });
    const [code, signal] = (await once(git.child, 'close')) as [number | null, NodeJS.Signals | null];
    expect(Date.now() - started).toBeLessThan(5000);
    expect(code === null ? signal : code).toBe('SIGTERM');
    expect(git.stopped()).toMatchObject({ code: Code.DEADLINE_EXCEEDED, reason: 'git_timeout' });
  });

  it('applies [git.timeout] DEFAULT to runGit and stops what git started too', async () => {
    setGitProcessLimits({ timeoutMs: 300, idleTimeoutMs: 60_000 });
    const started = Date.now();
    // git waits for the alias's `sleep`, which holds git's stdout: only stopping the whole process group ends it early.
    const run = runGit(['-c', 'alias.wait=!sleep 5', 'wait']);
    await expect(run).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED, reason: 'git_timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stops a watched process that moves no byte for [git.timeout] IDLE, not one that keeps moving', async () => {
    setGitProcessLimits({ timeoutMs: 60_000, idleTimeoutMs: 400 });
    const busy = gitCommand(['cat-file', '--batch']);
    busy.watchIdle();
    const idle = gitCommand(['cat-file', '--batch']);
    idle.watchIdle();
    const closed = once(idle.child, 'close');
    const keepAlive = setInterval(() => busy.touch(), 100);
    try {
      await closed;
      expect(idle.stopped()).toMatchObject({ code: Code.DEADLINE_EXCEEDED, reason: 'git_idle_timeout' });
      expect(busy.stopped()).toBeUndefined();
      expect(busy.child.exitCode).toBeNull();
    } finally {
      clearInterval(keepAlive);
      busy.child.stdin.end();
      await once(busy.child, 'close');
    }
  });
});
