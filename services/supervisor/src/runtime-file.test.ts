import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { processIdentity } from './processes';
import { readLiveRuntimeFile, readRuntimeFile, removeRuntimeFile, runtimeFilePath, writeRuntimeFile, type RuntimeInfo } from './runtime-file';

describe('runtime file', () => {
  let workDir: string;
  beforeEach(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-runtime-'));
  });
  afterEach(() => fs.rmSync(workDir, { recursive: true, force: true }));

  const info = (supervisor = processIdentity()): RuntimeInfo => ({
    supervisor,
    state: 'ready',
    workDir,
    httpUrl: 'http://127.0.0.1:3000',
    rootUrl: 'http://localhost:3000/',
    databaseUrl: 'postgres://cairn:secret@127.0.0.1:5999/cairn',
    embeddedDatabase: true,
    busUrl: '',
    mode: 'single-process',
    services: { accounts: { addr: '127.0.0.1:40001', port: 40001 } },
    startedAt: new Date(0).toISOString(),
  });

  it('is written readable by its owner only and read back while its supervisor lives', () => {
    writeRuntimeFile(workDir, info());
    expect(fs.statSync(runtimeFilePath(workDir)).mode & 0o777).toBe(0o600);
    expect(readLiveRuntimeFile(workDir)).toEqual(info());
  });

  it('is ignored once its supervisor is gone (pid reused by another process)', () => {
    const me = processIdentity();
    writeRuntimeFile(workDir, info({ pid: me.pid, startTicks: `${me.startTicks ?? '0'}7` }));
    if (me.startTicks !== undefined) expect(readLiveRuntimeFile(workDir)).toBeUndefined();
    expect(readRuntimeFile(workDir)?.services.accounts?.addr).toBe('127.0.0.1:40001');
  });

  it('is removed only by its own supervisor', () => {
    writeRuntimeFile(workDir, info());
    removeRuntimeFile(workDir, process.pid + 1);
    expect(readRuntimeFile(workDir)).toBeDefined();
    removeRuntimeFile(workDir, process.pid);
    expect(readRuntimeFile(workDir)).toBeUndefined();
  });
});
