import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockPath, parseLockHolder, tryAcquireWorkDirLock } from './work-dir-lock';

describe('work dir lock', () => {
  let workDir: string;
  beforeEach(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-'));
  });
  afterEach(() => fs.rmSync(workDir, { recursive: true, force: true }));

  it('is exclusive while its holder lives, and free again once released', () => {
    const first = tryAcquireWorkDirLock(workDir, 'supervisor');
    if (!('lock' in first)) throw new Error('expected the lock');
    const second = tryAcquireWorkDirLock(workDir, 'cli');
    expect(second).toEqual({ heldBy: expect.objectContaining({ pid: process.pid, role: 'supervisor' }) });
    first.lock.release();
    const third = tryAcquireWorkDirLock(workDir, 'cli');
    expect('lock' in third).toBe(true);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => child.once('exit', resolve));
    fs.mkdirSync(path.dirname(lockPath(workDir)), { recursive: true });
    fs.writeFileSync(lockPath(workDir), JSON.stringify({ pid: child.pid, role: 'supervisor', since: '' }));
    expect('lock' in tryAcquireWorkDirLock(workDir, 'supervisor')).toBe(true);
  });

  it('takes over a half-written lock file', () => {
    fs.mkdirSync(path.dirname(lockPath(workDir)), { recursive: true });
    fs.writeFileSync(lockPath(workDir), '');
    expect('lock' in tryAcquireWorkDirLock(workDir, 'cli')).toBe(true);
  });

  it('reports a lock file it cannot read instead of taking it over as if there were none', () => {
    fs.mkdirSync(path.dirname(lockPath(workDir)), { recursive: true });
    // A symlink to itself: it exists (the exclusive create fails) but reading it fails with ELOOP, as root too.
    fs.symlinkSync(path.basename(lockPath(workDir)), lockPath(workDir));
    expect(() => tryAcquireWorkDirLock(workDir, 'cli')).toThrow(`cannot read ${lockPath(workDir)}: ELOOP`);
    expect(fs.lstatSync(lockPath(workDir)).isSymbolicLink()).toBe(true);
  });

  it('parses only well-formed holders', () => {
    expect(parseLockHolder('{"pid": 12, "role": "cli", "since": "x", "startTicks": "99"}')).toEqual({ pid: 12, role: 'cli', since: 'x', startTicks: '99' });
    expect(parseLockHolder('{"pid": "12", "role": "cli"}')).toBeUndefined();
    expect(parseLockHolder('{"pid": 12, "role": "other"}')).toBeUndefined();
    expect(parseLockHolder('not json')).toBeUndefined();
  });
});
