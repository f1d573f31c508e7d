import { existsSync } from 'node:fs';
import { Code, type CairnError, isCairnError } from '@cairn/rpc';
import { type GitStorageHarness, createRequest, gitOk, repository, startGitStorage } from './harness';

let h: GitStorageHarness;

beforeAll(async () => {
  h = await startGitStorage();
});

afterAll(async () => {
  await h.stop();
});

async function failure(promise: Promise<unknown>): Promise<CairnError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isCairnError(error)) throw new Error(`expected a CairnError, got ${String(error)}`);
  return error;
}

/** A file of `branch` in the bare repository. */
const show = (repoId: number, spec: string) => gitOk(['--git-dir', h.gitDir(repoId), 'show', spec]);

describe('CreateRepository', () => {
  it('creates an empty bare repository with HEAD on the default branch and hosting settings', async () => {
    const id = h.nextRepoId();
    const created = await h.repositories.createRepository(createRequest(id, { defaultBranch: 'trunk' }));
    expect(created.commitSha).toBe('');
    const info = await h.repositories.getRepositoryInfo({ repository: repository(id) });
    expect(info).toEqual({ empty: true, sizeKib: 0, headBranch: 'trunk', branchCount: 0 });
    const gitDir = h.gitDir(id);
    expect(await gitOk(['--git-dir', gitDir, 'rev-parse', '--is-bare-repository'])).toBe('true');
    expect(await gitOk(['--git-dir', gitDir, 'config', 'uploadpack.allowFilter'])).toBe('true');
    expect(await gitOk(['--git-dir', gitDir, 'config', 'receive.denyNonFastForwards'])).toBe('false');
    expect(await gitOk(['--git-dir', gitDir, 'rev-parse', '--show-object-format'])).toBe('sha1');
    // No sample hooks from git's template directory.
    expect(existsSync(`${gitDir}/hooks`)).toBe(false);
  });

  it('auto-initialises README, .gitignore and LICENSE in one commit by the given author', async () => {
    const id = h.nextRepoId();
    const { commitSha } = await h.repositories.createRepository(
      createRequest(id, {
        autoInit: true,
        readme: 'Default',
        gitignores: 'Node,macOS',
        license: 'MIT',
        description: 'A demo repository',
        ownerName: 'acme',
      }),
    );
    expect(commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(await gitOk(['--git-dir', h.gitDir(id), 'rev-parse', 'refs/heads/main'])).toBe(commitSha);
    expect(await show(id, 'main:README.md')).toBe('# demo\n\nA demo repository');
    const gitignore = await show(id, 'main:.gitignore');
    expect(gitignore.startsWith('# ---> Node\n')).toBe(true);
    expect(gitignore).toContain('node_modules/');
    expect(gitignore).toContain('# ---> macOS\n');
    expect(gitignore).toContain('.DS_Store');
    const license = await show(id, 'main:LICENSE');
    expect(license).toContain('MIT License');
    expect(license).toContain('Copyright (c) 2024 acme');
    const commit = await gitOk(['--git-dir', h.gitDir(id), 'cat-file', 'commit', commitSha]);
    expect(commit).toContain('author Alice <alice@example.com> 1714979289 +0200');
    expect(commit).toContain('committer Alice <alice@example.com> 1714979289 +0200');
    expect(commit.endsWith('\n\nInitial commit')).toBe(true);
    expect(commit).not.toContain('parent ');
    const info = await h.repositories.getRepositoryInfo({ repository: repository(id) });
    expect(info.empty).toBe(false);
    expect(info.branchCount).toBe(1);
    expect(info.headBranch).toBe('main');
  });

  it('writes only README.md without gitignores or licence, defaulting the README template', async () => {
    const id = h.nextRepoId();
    await h.repositories.createRepository(createRequest(id, { autoInit: true }));
    expect(await gitOk(['--git-dir', h.gitDir(id), 'ls-tree', '--name-only', 'main'])).toBe('README.md');
  });

  it.each([
    [{ gitignores: 'Node,NoSuchThing' }, 'unknown_gitignore_template'],
    [{ license: 'NOT-A-LICENSE' }, 'unknown_license_template'],
    [{ readme: 'Fancy' }, 'unknown_readme_template'],
  ])('refuses unknown templates %j with INVALID_ARGUMENT and writes nothing', async (fields, reason) => {
    const id = h.nextRepoId();
    const error = await failure(h.repositories.createRepository(createRequest(id, { autoInit: true, ...fields })));
    expect([error.code, error.reason]).toEqual([Code.INVALID_ARGUMENT, reason]);
    expect(existsSync(h.gitDir(id))).toBe(false);
  });

  it('refuses a bad branch name, a missing author for auto-init, and an existing repository', async () => {
    const id = h.nextRepoId();
    const badBranch = await failure(h.repositories.createRepository(createRequest(id, { defaultBranch: 'a..b' })));
    expect([badBranch.code, badBranch.reason]).toEqual([Code.INVALID_ARGUMENT, 'invalid_ref_name']);
    const noAuthor = await failure(h.repositories.createRepository(createRequest(id, { autoInit: true, author: undefined })));
    expect(noAuthor.code).toBe(Code.INVALID_ARGUMENT);
    expect(existsSync(h.gitDir(id))).toBe(false);

    await h.repositories.createRepository(createRequest(id));
    const again = await failure(h.repositories.createRepository(createRequest(id)));
    expect([again.code, again.reason]).toEqual([Code.ALREADY_EXISTS, 'repository_exists']);
  });

  it('lets only one of two simultaneous creations of the same id succeed', async () => {
    const id = h.nextRepoId();
    const results = await Promise.allSettled([
      h.repositories.createRepository(createRequest(id, { autoInit: true })),
      h.repositories.createRepository(createRequest(id, { autoInit: true })),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('ListTemplates', () => {
  it('names the README, .gitignore and licence templates', async () => {
    const templates = await h.repositories.listTemplates({});
    expect(templates.readmes).toEqual(['Default']);
    expect(templates.gitignores).toEqual(expect.arrayContaining(['Go', 'Node', 'Python', 'macOS', 'Vim']));
    expect(templates.licenses).toEqual(expect.arrayContaining(['MIT', 'Apache-2.0', 'GPL-3.0-only']));
  });
});

describe('ForkRepository', () => {
  async function sourceWithTwoBranches(): Promise<number> {
    const id = h.nextRepoId();
    const { commitSha } = await h.repositories.createRepository(createRequest(id, { autoInit: true, defaultBranch: 'main' }));
    const gitDir = h.gitDir(id);
    await gitOk(['--git-dir', gitDir, 'update-ref', 'refs/heads/dev', commitSha]);
    await gitOk(['--git-dir', gitDir, 'tag', 'v1', commitSha]);
    return id;
  }

  it('copies every branch and tag into a self-contained repository', async () => {
    const source = await sourceWithTwoBranches();
    const fork = h.nextRepoId();
    await h.repositories.forkRepository({ source: repository(source), target: repository(fork), branch: '' });
    const refs = await gitOk(['--git-dir', h.gitDir(fork), 'for-each-ref', '--format=%(refname)']);
    expect(refs.split('\n')).toEqual(['refs/heads/dev', 'refs/heads/main', 'refs/tags/v1']);
    expect(existsSync(`${h.gitDir(fork)}/objects/info/alternates`)).toBe(false);
    expect(await gitOk(['--git-dir', h.gitDir(fork), 'config', '--get-regexp', '^remote\\.'], {}).catch(() => '')).toBe('');
    expect((await h.repositories.getRepositoryInfo({ repository: repository(fork) })).headBranch).toBe('main');
    // The fork survives its source.
    await h.repositories.deleteRepository({ repository: repository(source) });
    expect(await gitOk(['--git-dir', h.gitDir(fork), 'fsck', '--no-progress'])).toBe('');
  });

  it('copies a single branch, which becomes HEAD', async () => {
    const source = await sourceWithTwoBranches();
    const fork = h.nextRepoId();
    await h.repositories.forkRepository({ source: repository(source), target: repository(fork), branch: 'dev' });
    const branches = await gitOk(['--git-dir', h.gitDir(fork), 'for-each-ref', '--format=%(refname)', 'refs/heads/']);
    expect(branches).toBe('refs/heads/dev');
    expect((await h.repositories.getRepositoryInfo({ repository: repository(fork) })).headBranch).toBe('dev');
  });

  it('keeps an empty source’s HEAD and answers NOT_FOUND for a missing source or branch', async () => {
    const empty = h.nextRepoId();
    await h.repositories.createRepository(createRequest(empty, { defaultBranch: 'develop' }));
    const fork = h.nextRepoId();
    await h.repositories.forkRepository({ source: repository(empty), target: repository(fork), branch: '' });
    expect(await h.repositories.getRepositoryInfo({ repository: repository(fork) })).toMatchObject({ empty: true, headBranch: 'develop' });

    const missing = await failure(
      h.repositories.forkRepository({ source: repository(h.nextRepoId()), target: repository(h.nextRepoId()), branch: '' }),
    );
    expect([missing.code, missing.reason]).toEqual([Code.NOT_FOUND, 'repository_not_found']);
    const source = await sourceWithTwoBranches();
    const target = h.nextRepoId();
    const noBranch = await failure(h.repositories.forkRepository({ source: repository(source), target: repository(target), branch: 'nope' }));
    expect([noBranch.code, noBranch.reason]).toEqual([Code.NOT_FOUND, 'branch_not_found']);
    expect(existsSync(h.gitDir(target))).toBe(false);
  });
});

describe('DeleteRepository', () => {
  it('removes the repository and is idempotent', async () => {
    const id = h.nextRepoId();
    await h.repositories.createRepository(createRequest(id, { autoInit: true }));
    await h.repositories.deleteRepository({ repository: repository(id) });
    expect(existsSync(h.gitDir(id))).toBe(false);
    await h.repositories.deleteRepository({ repository: repository(id) });
    const gone = await failure(h.repositories.getRepositoryInfo({ repository: repository(id) }));
    expect(gone.code).toBe(Code.NOT_FOUND);
  });
});

describe('SetDefaultBranch', () => {
  it('takes any valid name on an empty repository and only existing branches otherwise', async () => {
    const empty = h.nextRepoId();
    await h.repositories.createRepository(createRequest(empty));
    await h.repositories.setDefaultBranch({ repository: repository(empty), branch: 'future' });
    expect((await h.repositories.getRepositoryInfo({ repository: repository(empty) })).headBranch).toBe('future');

    const id = h.nextRepoId();
    const { commitSha } = await h.repositories.createRepository(createRequest(id, { autoInit: true }));
    await gitOk(['--git-dir', h.gitDir(id), 'update-ref', 'refs/heads/release', commitSha]);
    await h.repositories.setDefaultBranch({ repository: repository(id), branch: 'release' });
    expect((await h.repositories.getRepositoryInfo({ repository: repository(id) })).headBranch).toBe('release');
    const missing = await failure(h.repositories.setDefaultBranch({ repository: repository(id), branch: 'nope' }));
    expect([missing.code, missing.reason]).toEqual([Code.NOT_FOUND, 'branch_not_found']);
    const invalid = await failure(h.repositories.setDefaultBranch({ repository: repository(id), branch: '-x' }));
    expect([invalid.code, invalid.reason]).toEqual([Code.INVALID_ARGUMENT, 'invalid_ref_name']);
  });
});

describe('GetRepositoryInfo', () => {
  it('reports the size of objects and packs in KiB', async () => {
    const id = h.nextRepoId();
    await h.repositories.createRepository(createRequest(id, { autoInit: true, license: 'GPL-3.0-only' }));
    const info = await h.repositories.getRepositoryInfo({ repository: repository(id) });
    // The GPL text alone is 34 KiB; compressed loose objects take at least 8 KiB.
    expect(info.sizeKib).toBeGreaterThan(8);
  });
});
