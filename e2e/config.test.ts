/** Start-up refuses a bad setting with a message naming it, and changes nothing on disk. */
import * as fs from 'node:fs';
import path from 'node:path';
import { baseEnv, cleanUpWorkDir, makeWorkDir, runSupervisorToExit } from './support/instance';

jest.setTimeout(60_000);

describe('configuration errors at start-up', () => {
  let workDir: string;

  beforeEach(() => {
    workDir = makeWorkDir();
  });
  afterEach(async () => {
    await cleanUpWorkDir(workDir);
  });

  it('names the environment variable and key of a bad value and exits 2', async () => {
    const exit = await runSupervisorToExit(baseEnv(workDir, { CAIRN__server__HTTP_PORT: 'abc' }));
    expect(exit.code).toBe(2);
    expect(exit.output).toContain('invalid value "abc" for [server] HTTP_PORT');
    expect(exit.output).toContain('CAIRN__server__HTTP_PORT');
    expect(fs.existsSync(path.join(workDir, 'postgres'))).toBe(false);
  });

  it('names the key of a bad value in app.ini', async () => {
    fs.mkdirSync(workDir, { recursive: true });
    fs.writeFileSync(path.join(workDir, 'app.ini'), '[ui.explore]\nREQUIRE_SIGNIN_VIEW = maybe\n');
    const exit = await runSupervisorToExit(baseEnv(workDir));
    expect(exit.code).toBe(2);
    expect(exit.output).toContain('[ui.explore] REQUIRE_SIGNIN_VIEW');
  });
});
