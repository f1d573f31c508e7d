import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Code } from '@cairn/rpc';
import { createRepositoryDir } from './create';

describe('createRepositoryDir', () => {
  let dir: string;
  let gitDir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-create-'));
    gitDir = path.join(dir, 'ab', 'cd', '7.git');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const build = (scratch: string) => {
    mkdirSync(scratch);
    writeFileSync(path.join(scratch, 'HEAD'), 'ref: refs/heads/main\n');
  };

  it('moves what was built into place', async () => {
    await createRepositoryDir(gitDir, new AbortController().signal, async (scratch) => build(scratch));
    expect(readdirSync(gitDir)).toEqual(['HEAD']);
    expect(readdirSync(path.dirname(gitDir))).toEqual(['7.git']);
  });

  it('leaves nothing on disk when the caller gave up while it was being built (its deadline passed)', async () => {
    const caller = new AbortController();
    const made = createRepositoryDir(gitDir, caller.signal, async (scratch) => {
      build(scratch);
      caller.abort();
    });
    await expect(made).rejects.toMatchObject({ code: Code.CANCELLED });
    expect(existsSync(gitDir)).toBe(false);
    expect(readdirSync(path.dirname(gitDir))).toEqual([]);
  });
});
