import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openRepository } from '../git/open-repository';
import { repositoryPath } from './layout';
import { statIfExists } from './stat-if-exists';

describe('statIfExists', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-stat-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers undefined for a missing path and for a path through a file', async () => {
    writeFileSync(path.join(dir, 'file'), 'x');
    await expect(statIfExists(path.join(dir, 'missing'))).resolves.toBeUndefined();
    await expect(statIfExists(path.join(dir, 'file', 'below'))).resolves.toBeUndefined();
    await expect(statIfExists(path.join(dir, 'file'))).resolves.toBeDefined();
  });

  it('lets any other failure be an error, so a broken disk is not a missing repository (404)', async () => {
    symlinkSync(path.join(dir, 'loop'), path.join(dir, 'loop'));
    await expect(statIfExists(path.join(dir, 'loop'))).rejects.toMatchObject({ code: 'ELOOP' });
    const repository = { storage: 'default', repoId: 7 };
    const gitDir = repositoryPath(dir, repository);
    await expect(openRepository(dir, repository)).rejects.toMatchObject({ reason: 'repository_not_found' });
    mkdirSync(gitDir, { recursive: true });
    symlinkSync(path.join(gitDir, 'HEAD'), path.join(gitDir, 'HEAD'));
    await expect(openRepository(dir, repository)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
