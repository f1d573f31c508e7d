import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '@cairn/log';
import { isPostmasterCommand, parsePostmasterPid, postmasterPidPath, stopStalePostmaster } from './postmaster';

describe('parsePostmasterPid', () => {
  it('reads pid, data directory and port', () => {
    const text = '11314\n/tmp/work/postgres\n1795307460\n54999\n\n127.0.0.1\n  2147107        10\nready   \n';
    expect(parsePostmasterPid(text)).toEqual({ pid: 11314, dataDir: '/tmp/work/postgres', port: 54999 });
  });

  it('rejects a file without a pid', () => {
    expect(parsePostmasterPid('')).toBeUndefined();
    expect(parsePostmasterPid('abc\n/x\n')).toBeUndefined();
  });
});

describe('isPostmasterCommand', () => {
  const dataDir = '/srv/cairn/postgres';

  it('recognises a postgres server on the data directory', () => {
    expect(isPostmasterCommand(['/opt/pg/bin/postgres', '-D', dataDir, '-p', '5999'], dataDir)).toBe(true);
    expect(isPostmasterCommand(['/opt/pg/bin/postgres', '-D', '/srv/cairn/postgres/', '-p', '5999'], dataDir)).toBe(true);
  });

  it('does not take another program or another directory for it', () => {
    expect(isPostmasterCommand(['/usr/bin/node', 'server.js', '-D', dataDir], dataDir)).toBe(false);
    expect(isPostmasterCommand(['/opt/pg/bin/postgres', '-D', '/srv/other/postgres'], dataDir)).toBe(false);
    expect(isPostmasterCommand(['/opt/pg/bin/postgres'], dataDir)).toBe(false);
  });
});

describe('stopStalePostmaster', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-postmaster-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('removes a pid file whose process is not a postgres on this directory, without signalling it', async () => {
    // This test process is alive but is no postgres: it must be left alone and the file cleared.
    fs.writeFileSync(postmasterPidPath(dataDir), `${process.pid}\n${dataDir}\n0\n5432\n`);
    await stopStalePostmaster(dataDir, silentLogger());
    expect(fs.existsSync(postmasterPidPath(dataDir))).toBe(false);
  });

  it('does nothing without a pid file', async () => {
    await expect(stopStalePostmaster(dataDir, silentLogger())).resolves.toBeUndefined();
  });
});
