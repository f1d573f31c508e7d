import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '@cairn/log';
import { ChildService, restartDelayMs } from './child-service';
import { isProcessAlive, waitForProcessExit, type ProcessIdentity } from './processes';

describe('restartDelayMs', () => {
  it('doubles from half a second and stops growing at 30 s', () => {
    expect([1, 2, 3, 4].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000]);
    expect(restartDelayMs(7)).toBe(30_000);
    expect(restartDelayMs(50)).toBe(30_000);
  });
});

describe('ChildService', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-child-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function script(name: string, body: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, body);
    return file;
  }

  it('restarts a child that crashes, and stops it for good with SIGTERM', async () => {
    // First run crashes; later runs stay up until SIGTERM.
    const marker = path.join(dir, 'crashed-once');
    const file = script(
      'crash-once.js',
      `const fs = require('fs');
       if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); process.exit(3); }
       setInterval(() => {}, 1000);`,
    );
    const spawned: ProcessIdentity[] = [];
    let secondStarted: () => void = () => undefined;
    const restarted = new Promise<void>((resolve) => (secondStarted = resolve));
    const child = new ChildService({
      name: 'demo',
      script: file,
      env: process.env,
      cwd: dir,
      logger: silentLogger(),
      onSpawn: (identity) => {
        spawned.push(identity);
        if (spawned.length === 2) secondStarted();
      },
    });
    child.start();
    await restarted;
    const running = spawned[1].pid;
    expect(isProcessAlive(running)).toBe(true);

    await child.stop(5_000);
    expect(await waitForProcessExit(running, 5_000)).toBe(true);
    expect(spawned).toHaveLength(2);
  });
});
