import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BranchRule, type FileChange, type GetTreeEntryRequest, type Signature, type WriteFilesRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { Code } from '@cairn/rpc';
import { ZERO_SHA } from '../src/git/refs';
import {
  type GitStorageFixture,
  PUSH,
  type TestRepository,
  collect,
  git,
  identityAt,
  rejection,
  startGitStorageFixture,
} from './git-repo-fixture';

let fixture: GitStorageFixture;

beforeAll(async () => {
  fixture = await startGitStorageFixture();
});

afterAll(async () => {
  await fixture.stop();
});

const T0 = 1_700_000_000;

function treeEntry(repo: TestRepository, path: string, options: Partial<GetTreeEntryRequest> = {}) {
  const defaults = { revision: 'main', withContent: false, maxContentBytes: 0, withLastCommit: false };
  return fixture.contents.getTreeEntry({ repository: repo.repository, path, ...defaults, ...options });
}

/** Commits `tree` on top of `parent` (none: a root commit) with plumbing and moves main there. */
function commitTree(repo: TestRepository, tree: string, parent: string | undefined, message: string, at: number): string {
  const parents = parent === undefined ? [] : ['-p', parent];
  const sha = git(['commit-tree', tree, ...parents, '-m', message], { cwd: repo.gitDir, env: identityAt(at) }).stdout.trim();
  git(['update-ref', 'refs/heads/main', sha], { cwd: repo.gitDir });
  return sha;
}

/** A repository with files, a symlink, an executable and a submodule on main. */
function richRepository(): { repo: TestRepository; first: string; second: string } {
  const repo = fixture.newRepository();
  const [first, second] = fixture.commitOn(repo, 'main', [
    { files: { 'b.txt': 'bee\n', 'b/inner.txt': 'inner\n', 'a.md': '# A\n' }, message: 'first', at: T0 },
    { files: { 'b.txt': 'bee 2\n', 'docs/guide.md': 'guide\n' }, message: 'second', at: T0 + 60 },
  ]);
  // A symlink, an executable and a submodule, added with plumbing on top of `second`.
  const env = { GIT_INDEX_FILE: path.join(repo.gitDir, 'test-index') };
  const blob = (content: string) => git(['hash-object', '-w', '--stdin'], { cwd: repo.gitDir, input: content }).stdout.trim();
  git(['read-tree', second!], { cwd: repo.gitDir, env });
  git(['update-index', '--add', '--cacheinfo', `120000,${blob('docs/guide.md')},link`], { cwd: repo.gitDir, env });
  git(['update-index', '--add', '--cacheinfo', `100755,${blob('#!/bin/sh\n')},run.sh`], { cwd: repo.gitDir, env });
  git(['update-index', '--add', '--cacheinfo', `160000,${first},vendor/lib`], { cwd: repo.gitDir, env });
  const tree = git(['write-tree'], { cwd: repo.gitDir, env }).stdout.trim();
  const third = commitTree(repo, tree, second, 'third', T0 + 120);
  rmSync(env.GIT_INDEX_FILE);
  return { repo, first: first!, second: third };
}

describe('GetTreeEntry', () => {
  it('lists a directory in git tree order with types, sizes, modes and symlink targets', async () => {
    const { repo, second } = richRepository();
    const root = await treeEntry(repo, '');
    expect(root.commitSha).toBe(second);
    expect(root.entry).toMatchObject({ name: '', path: '', type: 'dir' });
    expect(root.entries.map((entry) => [entry.name, entry.type, entry.mode, entry.size])).toEqual([
      ['a.md', 'file', '100644', 4],
      ['b.txt', 'file', '100644', 6],
      ['b', 'dir', '040000', 0],
      ['docs', 'dir', '040000', 0],
      ['link', 'symlink', '120000', 13],
      ['run.sh', 'file', '100755', 10],
      ['vendor', 'dir', '040000', 0],
    ]);
    expect(root.entries.find((entry) => entry.name === 'link')?.target).toBe('docs/guide.md');

    const vendor = await treeEntry(repo, 'vendor/', { revision: '' });
    expect(vendor.entry).toMatchObject({ name: 'vendor', path: 'vendor', type: 'dir' });
    expect(vendor.entries).toEqual([expect.objectContaining({ name: 'lib', path: 'vendor/lib', type: 'submodule', mode: '160000' })]);
  });

  it('returns a file with its content, truncated at the limit', async () => {
    const { repo } = richRepository();
    const full = await treeEntry(repo, 'docs/guide.md', { withContent: true });
    expect(full.entry).toMatchObject({ name: 'guide.md', path: 'docs/guide.md', type: 'file', size: 6 });
    expect(full.content.toString()).toBe('guide\n');
    expect(full.truncated).toBe(false);
    expect(full.entries).toEqual([]);

    const cut = await treeEntry(repo, 'docs/guide.md', { withContent: true, maxContentBytes: 3 });
    expect(cut.content.toString()).toBe('gui');
    expect(cut.truncated).toBe(true);

    const without = await treeEntry(repo, 'b.txt');
    expect(without.content.length).toBe(0);
  });

  it('fills the last commit of the entry and of each directory entry', async () => {
    const { repo, first, second } = richRepository();
    const firstParent = git(['rev-parse', `${second}^`], { cwd: repo.gitDir }).stdout.trim();
    const listing = await treeEntry(repo, '', { revision: first, withLastCommit: true });
    expect(listing.entries.map((entry) => [entry.name, entry.lastCommit?.sha])).toEqual([
      ['a.md', first],
      ['b.txt', first],
      ['b', first],
    ]);
    const latest = await treeEntry(repo, 'b.txt', { withLastCommit: true });
    expect(latest.entry?.lastCommit).toMatchObject({ sha: firstParent, message: 'second\n' });
  });

  it('answers NOT_FOUND for missing paths and INVALID_ARGUMENT for traversal', async () => {
    const { repo } = richRepository();
    const ask = (p: string, revision = 'main') => treeEntry(repo, p, { revision, withContent: true });
    expect(await rejection(ask('nope.txt'))).toMatchObject({ code: Code.NOT_FOUND, reason: 'path_not_found' });
    expect(await rejection(ask('b.txt/x'))).toMatchObject({ code: Code.NOT_FOUND, reason: 'path_not_found' });
    expect(await rejection(ask('a.md', 'nope'))).toMatchObject({ code: Code.NOT_FOUND, reason: 'revision_not_found' });
    for (const bad of ['../etc/passwd', '/etc/passwd', '.git/config', 'docs/../../x', 'a\u0000b']) {
      expect(await rejection(ask(bad))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_path' });
    }
  });
});

describe('GetBlob', () => {
  it('streams a blob in several messages, the first carrying the entry', async () => {
    const repo = fixture.newRepository();
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i += 1) big[i] = (i * 31) % 251;
    const blobSha = git(['hash-object', '-w', '--stdin'], { cwd: repo.gitDir, input: big }).stdout.trim();
    const env = { GIT_INDEX_FILE: path.join(repo.gitDir, 'test-index') };
    git(['update-index', '--add', '--cacheinfo', `100644,${blobSha},data/big.bin`], { cwd: repo.gitDir, env });
    const tree = git(['write-tree'], { cwd: repo.gitDir, env }).stdout.trim();
    commitTree(repo, tree, undefined, 'big', T0);

    const messages = await collect(fixture.contents.getBlob({ repository: repo.repository, revision: 'main', path: 'data/big.bin' }));
    expect(messages.length).toBeGreaterThan(1);
    expect(messages[0]?.entry).toMatchObject({ path: 'data/big.bin', sha: blobSha, size: big.length, type: 'file' });
    expect(messages.slice(1).every((message) => message.entry === undefined)).toBe(true);
    expect(Buffer.concat(messages.map((message) => message.data)).equals(big)).toBe(true);

    const dir = await rejection(collect(fixture.contents.getBlob({ repository: repo.repository, revision: 'main', path: 'data' })));
    expect(dir.code).toBe(Code.NOT_FOUND);
    const traversal = await rejection(collect(fixture.contents.getBlob({ repository: repo.repository, revision: 'main', path: '../x' })));
    expect(traversal).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_path' });
  });

  it('serves an empty file as one message', async () => {
    const repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { empty: '' }, message: 'empty', at: T0 }]);
    const messages = await collect(fixture.contents.getBlob({ repository: repo.repository, revision: '', path: 'empty' }));
    expect(messages).toEqual([{ entry: expect.objectContaining({ path: 'empty', size: 0 }), data: Buffer.alloc(0) }]);
  });
});

const AUTHOR: Signature = { name: 'Ann Author', email: 'ann@example.com', when: new Date('2020-02-03T04:05:06Z'), timezone: '+0100' };
const COMMITTER: Signature = { name: 'Cid Committer', email: 'cid@example.com', when: new Date('2021-07-08T09:10:11Z'), timezone: '-0330' };

function writeRequest(repo: TestRepository, files: Partial<FileChange>[], extra: Partial<WriteFilesRequest> = {}): WriteFilesRequest {
  return {
    repository: repo.repository,
    branch: '',
    newBranch: '',
    files: files.map((file) => ({ operation: 'create', path: '', content: Buffer.alloc(0), sha: '', fromPath: '', ...file })),
    message: 'change files',
    author: AUTHOR,
    committer: COMMITTER,
    push: PUSH,
    signoff: false,
    ...extra,
  };
}

const text = (value: string) => Buffer.from(value);

describe('WriteFiles', () => {
  it('creates, updates, renames and deletes files in one commit with the given identities and dates', async () => {
    const repo = fixture.newRepository();
    const [base] = fixture.commitOn(repo, 'main', [{ files: { 'keep.txt': 'keep\n', 'old.txt': 'old\n', 'gone.txt': 'gone\n' }, message: 'base', at: T0 }]);
    const oldSha = git(['rev-parse', 'main:old.txt'], { cwd: repo.gitDir }).stdout.trim();
    const before = (await fixture.pushedEvents()).length;

    const response = await fixture.contents.writeFiles(
      writeRequest(repo, [
        { operation: 'create', path: 'new/dir/file.txt', content: text('new\n') },
        { operation: 'update', path: 'keep.txt', content: text('kept\n') },
        { operation: 'update', path: 'renamed.txt', fromPath: 'old.txt', content: text('old, moved\n'), sha: oldSha },
        { operation: 'delete', path: 'gone.txt' },
        { operation: 'upload', path: 'up.txt', content: text('up\n') },
      ], { message: '  Change several files  \n', signoff: true }),
    );
    const head = git(['rev-parse', 'main'], { cwd: repo.gitDir }).stdout.trim();
    expect(response.branch).toBe('main');
    expect(response.commit).toMatchObject({
      sha: head,
      parentShas: [base],
      author: AUTHOR,
      committer: COMMITTER,
      message: 'Change several files\n\nSigned-off-by: Cid Committer <cid@example.com>\n',
    });
    expect(git(['cat-file', 'commit', head], { cwd: repo.gitDir }).stdout).toContain(`author Ann Author <ann@example.com> ${Date.parse('2020-02-03T04:05:06Z') / 1000} +0100`);
    expect(git(['ls-tree', '-r', '--name-only', 'main'], { cwd: repo.gitDir }).stdout.trim().split('\n')).toEqual([
      'keep.txt',
      'new/dir/file.txt',
      'renamed.txt',
      'up.txt',
    ]);
    expect(git(['show', 'main:renamed.txt'], { cwd: repo.gitDir }).stdout).toBe('old, moved\n');
    expect(response.entries.map((entry) => [entry.path, entry.type, entry.size])).toEqual([
      ['new/dir/file.txt', 'file', 4],
      ['keep.txt', 'file', 5],
      ['renamed.txt', 'file', 11],
      ['', '', 0],
      ['up.txt', 'file', 3],
    ]);
    expect(response.entries[0]?.sha).toBe(git(['rev-parse', 'main:new/dir/file.txt'], { cwd: repo.gitDir }).stdout.trim());

    const events = (await fixture.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]?.refUpdates).toEqual([{ ref: 'refs/heads/main', oldSha: base, newSha: head }]);
    expect(events[0]?.commitCount).toBe(1);
  });

  it('keeps the executable bit on update and defaults the committer to the author, now', async () => {
    const repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { 'run.sh': '#!/bin/sh\n' }, message: 'base', at: T0 }]);
    const env = { GIT_INDEX_FILE: path.join(repo.gitDir, 'test-index') };
    git(['read-tree', 'main'], { cwd: repo.gitDir, env });
    const script = git(['rev-parse', 'main:run.sh'], { cwd: repo.gitDir }).stdout.trim();
    git(['update-index', '--cacheinfo', `100755,${script},run.sh`], { cwd: repo.gitDir, env });
    const tree = git(['write-tree'], { cwd: repo.gitDir, env }).stdout.trim();
    commitTree(repo, tree, git(['rev-parse', 'main'], { cwd: repo.gitDir }).stdout.trim(), 'exec', T0 + 60);

    const started = Date.now();
    const response = await fixture.contents.writeFiles(
      writeRequest(repo, [{ operation: 'update', path: 'run.sh', content: text('#!/bin/sh\necho hi\n') }], { committer: undefined }),
    );
    expect(response.entries[0]?.mode).toBe('100755');
    expect(response.commit?.committer).toMatchObject({ name: AUTHOR.name, email: AUTHOR.email, timezone: '+0100' });
    expect(response.commit!.committer!.when!.getTime()).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
  });

  it('commits to a new branch from the given one', async () => {
    const repo = fixture.newRepository();
    const [base] = fixture.commitOn(repo, 'dev', [{ files: { 'a.txt': 'a\n' }, message: 'base', at: T0 }]);
    const response = await fixture.contents.writeFiles(writeRequest(repo, [{ operation: 'create', path: 'b.txt', content: text('b\n') }], { branch: 'dev', newBranch: 'topic/b' }));
    expect(response.branch).toBe('topic/b');
    expect(response.commit?.parentShas).toEqual([base]);
    expect(git(['rev-parse', 'refs/heads/dev'], { cwd: repo.gitDir }).stdout.trim()).toBe(base);
    expect(git(['rev-parse', 'refs/heads/topic/b'], { cwd: repo.gitDir }).stdout.trim()).toBe(response.commit?.sha);
    const events = await fixture.pushedEvents();
    expect(events[events.length - 1]?.refUpdates).toEqual([{ ref: 'refs/heads/topic/b', oldSha: ZERO_SHA, newSha: response.commit?.sha }]);
  });

  it('creates the first branch of an empty repository and points HEAD at it', async () => {
    const repo = fixture.newRepository();
    const response = await fixture.contents.writeFiles(writeRequest(repo, [{ operation: 'create', path: 'README.md', content: text('# hi\n') }], { branch: 'trunk' }));
    expect(response.branch).toBe('trunk');
    expect(response.commit?.parentShas).toEqual([]);
    expect(git(['symbolic-ref', 'HEAD'], { cwd: repo.gitDir }).stdout.trim()).toBe('refs/heads/trunk');

    const other = fixture.newRepository();
    const onHead = await fixture.contents.writeFiles(writeRequest(other, [{ operation: 'create', path: 'a', content: text('a') }]));
    expect(onHead.branch).toBe('main');
    const deleteOnEmpty = await rejection(fixture.contents.writeFiles(writeRequest(fixture.newRepository(), [{ operation: 'delete', path: 'a' }])));
    expect(deleteOnEmpty).toMatchObject({ code: Code.NOT_FOUND, reason: 'file_not_found' });
  });

  it("follows the branch's protection rule on the branch itself, but not when starting a new branch", async () => {
    const repo = fixture.newRepository();
    const [base] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n' }, message: 'base', at: T0 }]);
    const rule = (fields: Partial<BranchRule>) => BranchRule.fromPartial({ ruleName: 'main', canPush: true, ...fields });
    const write = (path: string, extra: Partial<WriteFilesRequest>) =>
      fixture.contents.writeFiles(writeRequest(repo, [{ operation: 'create', path, content: text('x') }], extra));

    expect(await rejection(write('b.txt', { rule: rule({ canPush: false }), push: { ...PUSH, pusherName: 'Alice' } }))).toMatchObject({
      code: Code.PERMISSION_DENIED,
      reason: 'user_cannot_commit',
      message: 'user cannot commit to repo [user: alice]',
    });
    expect(await rejection(write('keys/id.KEY', { rule: rule({ protectedFilePatterns: 'keys/*.key' }) }))).toMatchObject({
      code: Code.PERMISSION_DENIED,
      reason: 'file_protected',
      message: 'path is protected and can not be changed [path: keys/id.KEY]',
    });
    expect(await rejection(write('b.txt', { rule: rule({ requireSignedCommits: true }) }))).toMatchObject({ reason: 'user_cannot_commit' });
    expect(git(['rev-parse', 'main'], { cwd: repo.gitDir }).stdout.trim()).toBe(base);

    const docs = await write('docs/b.md', { rule: rule({ canPush: false, unprotectedFilePatterns: 'docs/**' }) });
    expect(docs.branch).toBe('main');
    const topic = await write('c.txt', { rule: rule({ canPush: false }), newBranch: 'topic' });
    expect(topic.branch).toBe('topic');
  });

  it('refuses broken rules and bad input without writing anything', async () => {
    const repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'link': 'x' }, message: 'base', at: T0 }]);
    git(['update-ref', 'refs/heads/other', 'main'], { cwd: repo.gitDir });
    const refsBefore = git(['for-each-ref'], { cwd: repo.gitDir }).stdout;
    const eventsBefore = (await fixture.pushedEvents()).length;
    const refuse = (files: Partial<FileChange>[], extra: Partial<WriteFilesRequest> = {}) =>
      rejection(fixture.contents.writeFiles(writeRequest(repo, files, extra)));
    const createN: Partial<FileChange>[] = [{ operation: 'create', path: 'n.txt', content: text('x') }];

    expect(await refuse([{ operation: 'create', path: 'a.txt', content: text('x') }])).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'file_exists' });
    expect(await refuse([{ operation: 'update', path: 'missing.txt', content: text('x') }])).toMatchObject({ code: Code.NOT_FOUND, reason: 'file_not_found' });
    expect(await refuse([{ operation: 'delete', path: 'missing.txt' }])).toMatchObject({ code: Code.NOT_FOUND, reason: 'file_not_found' });
    expect(await refuse([{ operation: 'update', path: 'a.txt', content: text('x'), sha: 'f'.repeat(40) }])).toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'sha_mismatch',
    });
    expect(await refuse([{ operation: 'delete', path: 'a.txt', sha: '0'.repeat(40) }])).toMatchObject({ reason: 'sha_mismatch' });
    expect(await refuse([{ operation: 'update', path: 'dir/b.txt', fromPath: 'a.txt', content: text('x') }])).toMatchObject({ reason: 'file_exists' });
    expect(await refuse([{ operation: 'create', path: 'a.txt/sub.txt', content: text('x') }])).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'path_conflict' });
    expect(await refuse([{ operation: 'create', path: 'dir', content: text('x') }])).toMatchObject({ reason: 'path_conflict' });
    expect(await refuse([{ operation: 'rename', path: 'x' }])).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_operation' });
    expect(await refuse([])).toMatchObject({ code: Code.INVALID_ARGUMENT });
    for (const bad of ['../escape.txt', '/abs.txt', '.git/config', 'x/.GIT/hooks/pre-receive', 'nul\u0000.txt', '', 'dir/../../x']) {
      expect(await refuse([{ operation: 'create', path: bad, content: text('x') }])).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_path' });
    }
    expect(await refuse([{ operation: 'update', path: 'ok.txt', fromPath: '../a.txt', content: text('x') }])).toMatchObject({ reason: 'invalid_path' });
    const tooBig = Buffer.alloc(fixture.context.maxFileSize! + 1, 0x61);
    expect(await refuse([{ operation: 'create', path: 'big.txt', content: tooBig }])).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'file_too_large' });
    expect(await refuse(createN, { branch: 'nope' })).toMatchObject({ code: Code.NOT_FOUND, reason: 'branch_not_found' });
    expect(await refuse(createN, { newBranch: 'other' })).toMatchObject({ code: Code.ALREADY_EXISTS, reason: 'branch_exists' });
    expect(await refuse(createN, { newBranch: 'bad..name' })).toMatchObject({ reason: 'invalid_ref_name' });
    expect(await refuse(createN, { author: undefined })).toMatchObject({ reason: 'invalid_signature' });
    expect(await refuse(createN, { committer: { ...COMMITTER, timezone: 'CEST' } })).toMatchObject({ reason: 'invalid_signature' });
    expect(await refuse(createN, { push: undefined })).toMatchObject({ code: Code.INVALID_ARGUMENT });
    // A failing change anywhere in the request stops the whole write.
    expect(await refuse([{ operation: 'create', path: 'fine.txt', content: text('x') }, { operation: 'delete', path: 'missing.txt' }])).toMatchObject({ reason: 'file_not_found' });

    expect(git(['for-each-ref'], { cwd: repo.gitDir }).stdout).toBe(refsBefore);
    expect((await fixture.pushedEvents()).length).toBe(eventsBefore);
  });
});

describe('GetArchive', () => {
  let repo: TestRepository;
  let scratch: string;

  beforeAll(() => {
    repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { 'README.md': '# r\n', 'src/main.ts': 'x\n' }, message: 'base', at: T0 }]);
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-archive-test-'));
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function archive(format: string, prefix = 'repo'): Promise<string> {
    const chunks = await collect(fixture.contents.getArchive({ repository: repo.repository, revision: 'main', format, prefix }));
    const file = path.join(scratch, `archive-${format}`);
    writeFileSync(file, Buffer.concat(chunks.map((chunk) => chunk.data)));
    return file;
  }

  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args);
    expect(result.status).toBe(0);
    return result.stdout.toString('utf8');
  };

  it('streams a zip and a tar.gz with entries under the prefix', async () => {
    const zipListing = run('unzip', ['-Z1', await archive('zip')]).trim().split('\n');
    expect(zipListing).toEqual(['repo/', 'repo/README.md', 'repo/src/', 'repo/src/main.ts']);
    const tarListing = run('tar', ['-tzf', await archive('tar.gz')]).trim().split('\n');
    expect(tarListing).toEqual(['repo/', 'repo/README.md', 'repo/src/', 'repo/src/main.ts']);
  });

  it('streams a bundle git can clone', async () => {
    const bundle = await archive('bundle');
    const clone = path.join(scratch, 'from-bundle');
    git(['clone', '--quiet', bundle, clone]);
    expect(git(['rev-parse', 'HEAD'], { cwd: clone }).stdout.trim()).toBe(git(['rev-parse', 'main'], { cwd: repo.gitDir }).stdout.trim());
    expect(git(['for-each-ref', '--format=%(refname)'], { cwd: repo.gitDir }).stdout.trim()).toBe('refs/heads/main');
  });

  it('refuses unknown formats, bad prefixes and unknown revisions', async () => {
    expect(await rejection(archive('rar'))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_archive_format' });
    expect(await rejection(archive('zip', '../up'))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_path' });
    const unknown = await rejection(collect(fixture.contents.getArchive({ repository: repo.repository, revision: 'nope', format: 'zip', prefix: '' })));
    expect(unknown.code).toBe(Code.NOT_FOUND);
  });
});
