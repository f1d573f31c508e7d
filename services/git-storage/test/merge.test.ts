/**
 * MergeService against real repositories: every merge style's history, conflicts, statuses, fork heads, the
 * compare-and-swap of the base branch, cairn.git.pushed, comparisons (commits, files, diff, patch) and bad input.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type MergeRequest, MergeServiceService, type Signature } from '@cairn/proto/cairn/git/v1/git_service';
import { Code, type RpcClient, type RpcServer, createRpcClient, createRpcServer, anyCaller } from '@cairn/rpc';
import { silentLogger } from '@cairn/log';
import { createMergeService } from '../src/rpc/merge-service';
import { type GitStorageFixture, PUSH, type TestRepository, collect, git, rejection, startGitStorageFixture } from './git-repo-fixture';

let fixture: GitStorageFixture;
let server: RpcServer;
let merges: RpcClient<typeof MergeServiceService>;

beforeAll(async () => {
  fixture = await startGitStorageFixture();
  server = createRpcServer({ service: 'git-storage', logger: silentLogger() });
  server.addService(MergeServiceService, createMergeService(fixture.context), anyCaller(MergeServiceService));
  const port = await server.start('127.0.0.1:0');
  merges = createRpcClient(MergeServiceService, { target: `127.0.0.1:${port}`, service: 'git-storage', caller: 'gateway', logger: silentLogger(), deadlineMs: 30_000 });
});

afterAll(async () => {
  merges.close();
  await server.stop(0);
  await fixture.stop();
});

const T0 = 1_700_000_000;
const AUTHOR: Signature = { name: 'Merger', email: 'merger@example.com', when: new Date('2024-05-06T07:08:09Z'), timezone: '+0200' };
const COMMITTER: Signature = { name: 'Bot', email: 'bot@example.com', when: new Date('2024-05-06T08:00:00Z'), timezone: '-0100' };

const rev = (repo: TestRepository, spec: string) => git(['rev-parse', spec], { cwd: repo.gitDir }).stdout.trim();
const show = (repo: TestRepository, format: string, spec: string) => git(['show', '-s', `--format=${format}`, spec], { cwd: repo.gitDir }).stdout.trim();
const fileAt = (repo: TestRepository, spec: string, file: string) => git(['show', `${spec}:${file}`], { cwd: repo.gitDir }).stdout;

/** main: base commit (a.txt, b.txt); feature: two commits from it; main: one more commit touching `mainFiles`. */
function diverged(mainFiles: Record<string, string | null> = { 'm.txt': 'main\n' }, featureFiles: Record<string, string | null> = { 'f.txt': 'feature\n' }) {
  const repo = fixture.newRepository();
  const [root] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, message: 'root', at: T0 }]);
  git(['update-ref', 'refs/heads/feature', root!], { cwd: repo.gitDir });
  const feature = fixture.commitOn(repo, 'feature', [
    { files: featureFiles, message: 'feature one', at: T0 + 60 },
    { files: { 'g.txt': 'second\n' }, message: 'feature two', at: T0 + 120 },
  ]);
  const [mainTip] = fixture.commitOn(repo, 'main', [{ files: mainFiles, message: 'main moves', at: T0 + 180 }]);
  return { repo, root: root!, feature, mainTip: mainTip! };
}

function mergeRequest(repo: TestRepository, style: string, fields: Partial<MergeRequest> = {}): MergeRequest {
  return {
    repository: repo.repository,
    baseBranch: 'main',
    head: 'refs/heads/feature',
    style,
    expectedHeadCommitId: '',
    message: `Merge feature (${style})\n\nbody`,
    author: AUTHOR,
    committer: COMMITTER,
    push: PUSH,
    sign: false,
    requireSigned: false,
    approved: false,
    ...fields,
  };
}

function checkMerge(repo: TestRepository, head = 'refs/heads/feature') {
  return merges.checkMerge({ repository: repo.repository, baseBranch: 'main', head });
}

describe('CheckMerge', () => {
  it('says mergeable, conflict (with the files), empty and ancestor', async () => {
    const clean = diverged();
    expect(await checkMerge(clean.repo)).toEqual({
      status: 'mergeable',
      mergeBase: clean.root,
      baseCommitId: clean.mainTip,
      headCommitId: clean.feature[1],
      conflictedFiles: [],
    });

    const conflicting = diverged({ 'a.txt': 'main a\n', 'b.txt': 'main b\n' }, { 'a.txt': 'feature a\n', 'b.txt': 'feature b\n' });
    const conflict = await checkMerge(conflicting.repo);
    expect(conflict.status).toBe('conflict');
    expect(conflict.conflictedFiles).toEqual(['a.txt', 'b.txt']);

    // The feature's changes are already on main (same content): the merge changes nothing.
    const empty = diverged({ 'f.txt': 'feature\n', 'g.txt': 'second\n' });
    expect((await checkMerge(empty.repo)).status).toBe('empty');

    const ancestor = await checkMerge(clean.repo, clean.root);
    expect(ancestor).toMatchObject({ status: 'ancestor', mergeBase: clean.root, headCommitId: clean.root });

    const [orphan] = fixture.commitOn(clean.repo, 'orphan', [{ files: { 'o.txt': 'o\n' }, message: 'unrelated', at: T0 }]);
    const unrelated = await rejection(checkMerge(clean.repo, orphan!));
    expect([unrelated.code, unrelated.reason]).toEqual([Code.FAILED_PRECONDITION, 'no_merge_base']);
  });

  it('refuses bad names and answers NOT_FOUND for missing ones', async () => {
    const { repo } = diverged();
    for (const head of ['--upload-pack=x', 'main..feature', 'a b', 'x~1', '']) {
      expect((await rejection(checkMerge(repo, head))).code).toBe(Code.INVALID_ARGUMENT);
    }
    expect((await rejection(merges.checkMerge({ repository: repo.repository, baseBranch: '-x', head: 'feature' }))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await rejection(merges.checkMerge({ repository: repo.repository, baseBranch: 'nope', head: 'feature' }))).reason).toBe('branch_not_found');
    expect((await rejection(checkMerge(repo, 'refs/pull/9/head'))).code).toBe(Code.NOT_FOUND);
    expect((await rejection(checkMerge(repo, 'f'.repeat(40)))).code).toBe(Code.NOT_FOUND);
    expect((await rejection(merges.checkMerge({ repository: { storage: '', repoId: 99_999 }, baseBranch: 'main', head: 'feature' }))).code).toBe(Code.NOT_FOUND);
  });
});

describe('Merge', () => {
  it('"merge" writes a merge commit of base and head with the message, author, committer and dates', async () => {
    const { repo, feature, mainTip } = diverged();
    const before = (await fixture.pushedEvents()).length;
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    expect(rev(repo, 'main')).toBe(mergeCommitId);
    expect(show(repo, '%P', mergeCommitId)).toBe(`${mainTip} ${feature[1]}`);
    expect(show(repo, '%an <%ae> %ad', mergeCommitId)).toBe('Merger <merger@example.com> Mon May 6 09:08:09 2024 +0200');
    expect(show(repo, '%cn <%ce> %cd', mergeCommitId)).toBe('Bot <bot@example.com> Mon May 6 07:00:00 2024 -0100');
    expect(show(repo, '%B', mergeCommitId)).toBe('Merge feature (merge)\n\nbody');
    expect(git(['ls-tree', '--name-only', mergeCommitId], { cwd: repo.gitDir }).stdout.split('\n').filter(Boolean)).toEqual([
      'a.txt', 'b.txt', 'f.txt', 'g.txt', 'm.txt',
    ]);
    const events = (await fixture.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      pusherId: PUSH.pusherId,
      repoId: repo.repository.repoId,
      repoOwnerId: PUSH.repoOwnerId,
      refUpdates: [{ ref: 'refs/heads/main', oldSha: mainTip, newSha: mergeCommitId }],
      // The head's commits were reachable before (from feature): only the merge commit is new.
      commitCount: 1,
    });
  });

  it('"squash" writes one commit on the base with the merged tree', async () => {
    const { repo, mainTip } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'squash', { committer: undefined }));
    expect(show(repo, '%P', mergeCommitId)).toBe(mainTip);
    expect(show(repo, '%an %cn', mergeCommitId)).toBe('Merger Merger');
    expect(fileAt(repo, mergeCommitId, 'g.txt')).toBe('second\n');
    expect(fileAt(repo, mergeCommitId, 'm.txt')).toBe('main\n');
    expect(rev(repo, 'main')).toBe(mergeCommitId);
  });

  it('"rebase" replays the head on the base (authors kept, committer given) and fast-forwards the base', async () => {
    const { repo, mainTip } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'rebase', { author: undefined }));
    expect(rev(repo, 'main')).toBe(mergeCommitId);
    const log = git(['log', '--format=%s|%an|%cn|%ct', `${mainTip}..main`], { cwd: repo.gitDir }).stdout.trim().split('\n');
    const committed = Math.floor(COMMITTER.when!.getTime() / 1000);
    expect(log).toEqual([`feature two|Tester|Bot|${committed}`, `feature one|Tester|Bot|${committed}`]);
    expect(show(repo, '%P', `${mergeCommitId}~1`)).toBe(mainTip);
    // The temporary worktree is gone.
    expect(git(['worktree', 'list', '--porcelain'], { cwd: repo.gitDir }).stdout.match(/^worktree /gm)).toHaveLength(1);
    const scratch = path.join(fixture.context.root, 'default', '.tmp');
    expect(existsSync(scratch) ? readdirSync(scratch) : []).toEqual([]);
  });

  it('"rebase-merge" rebases, then writes a merge commit of the base and the rebased head', async () => {
    const { repo, mainTip, feature } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'rebase-merge'));
    const [first, second] = show(repo, '%P', mergeCommitId).split(' ');
    expect(first).toBe(mainTip);
    expect(second).not.toBe(feature[1]);
    expect(show(repo, '%P', `${second}~1`)).toBe(mainTip);
    expect(show(repo, '%s', second!)).toBe('feature two');
    expect(show(repo, '%T', mergeCommitId)).toBe(show(repo, '%T', second!));
    expect(show(repo, '%s', mergeCommitId)).toBe('Merge feature (rebase-merge)');
  });

  it('"fast-forward-only" moves the base to the head, or refuses when the base has moved on', async () => {
    const diverging = diverged();
    const refused = await rejection(merges.merge(mergeRequest(diverging.repo, 'fast-forward-only')));
    expect([refused.code, refused.reason]).toEqual([Code.FAILED_PRECONDITION, 'not_fast_forward']);
    expect(rev(diverging.repo, 'main')).toBe(diverging.mainTip);

    const repo = fixture.newRepository();
    const [root] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n' }, message: 'root', at: T0 }]);
    git(['update-ref', 'refs/heads/feature', root!], { cwd: repo.gitDir });
    const [tip] = fixture.commitOn(repo, 'feature', [{ files: { 'f.txt': 'f\n' }, message: 'f', at: T0 + 60 }]);
    expect(await merges.merge(mergeRequest(repo, 'fast-forward-only'))).toEqual({ mergeCommitId: tip });
    expect(rev(repo, 'main')).toBe(tip);
    const [next] = fixture.commitOn(repo, 'feature', [{ files: { 'g.txt': 'g\n' }, message: 'g', at: T0 + 120 }]);
    // A head already on the base needs no replay: "rebase" fast-forwards to the very same commit.
    expect(await merges.merge(mergeRequest(repo, 'rebase'))).toEqual({ mergeCommitId: next });
    expect(rev(repo, 'main')).toBe(next);
    // Now the head is in the base: nothing is left to merge.
    expect((await rejection(merges.merge(mergeRequest(repo, 'merge')))).reason).toBe('already_merged');
  });

  it('"rebase" of changes the base already has leaves the base where it is', async () => {
    const { repo, mainTip } = diverged({ 'f.txt': 'feature\n', 'g.txt': 'second\n' });
    const before = (await fixture.pushedEvents()).length;
    expect(await merges.merge(mergeRequest(repo, 'rebase'))).toEqual({ mergeCommitId: mainTip });
    expect(rev(repo, 'main')).toBe(mainTip);
    expect(await fixture.pushedEvents()).toHaveLength(before);
    // A merge commit is still a merge commit: it records the head's history.
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    expect(show(repo, '%T', mergeCommitId)).toBe(show(repo, '%T', mainTip));
    expect(show(repo, '%P', mergeCommitId).split(' ')).toHaveLength(2);
  });

  it('answers ABORTED merge_conflict with the files, for three-way merges and rebases, and changes nothing', async () => {
    for (const style of ['merge', 'squash', 'rebase', 'rebase-merge']) {
      const { repo, mainTip } = diverged({ 'a.txt': 'main a\n' }, { 'a.txt': 'feature a\n' });
      const error = await rejection(merges.merge(mergeRequest(repo, style)));
      expect([error.code, error.reason, error.message]).toEqual([Code.ABORTED, 'merge_conflict', 'merge conflict in: a.txt']);
      expect(rev(repo, 'main')).toBe(mainTip);
    }
    const scratch = path.join(fixture.context.root, 'default', '.tmp');
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses a head that is not the expected commit, and signing without a key', async () => {
    const { repo, feature, mainTip } = diverged();
    const stale = await rejection(merges.merge(mergeRequest(repo, 'merge', { expectedHeadCommitId: feature[0] })));
    expect([stale.code, stale.reason]).toEqual([Code.FAILED_PRECONDITION, 'head_out_of_date']);
    // No [repository.signing] key in this fixture: a required signature is refused, nothing is written.
    const sign = await rejection(merges.merge(mergeRequest(repo, 'merge', { sign: true, requireSigned: true })));
    expect([sign.code, sign.message, sign.reason]).toEqual([Code.FAILED_PRECONDITION, 'wont sign: nokey', 'wont_sign']);
    expect(rev(repo, 'main')).toBe(mainTip);
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge', { expectedHeadCommitId: feature[1]!.toUpperCase() }));
    expect(rev(repo, 'main')).toBe(mergeCommitId);
  });

  it('answers base_out_of_date when the base branch moves during the merge', async () => {
    const { repo, root, mainTip } = diverged();
    // A post-checkout hook runs when the rebase's worktree is made: it moves main as a concurrent push would.
    mkdirSync(path.join(repo.gitDir, 'hooks'), { recursive: true });
    const hook = path.join(repo.gitDir, 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ngit --git-dir="${repo.gitDir}" update-ref refs/heads/main ${root}\n`);
    chmodSync(hook, 0o755);
    const before = (await fixture.pushedEvents()).length;
    const error = await rejection(merges.merge(mergeRequest(repo, 'rebase')));
    expect([error.code, error.reason]).toEqual([Code.FAILED_PRECONDITION, 'base_out_of_date']);
    expect(rev(repo, 'main')).toBe(root);
    expect(rev(repo, 'main')).not.toBe(mainTip);
    expect(await fixture.pushedEvents()).toHaveLength(before);
  });

  it('answers head_out_of_date and leaves the base alone when the head ref moves during the merge', async () => {
    const { repo, feature, mainTip } = diverged();
    git(['update-ref', 'refs/pull/1/head', feature[1]!], { cwd: repo.gitDir });
    // As above: the hook moves the pull request's head while the rebase runs.
    mkdirSync(path.join(repo.gitDir, 'hooks'), { recursive: true });
    const hook = path.join(repo.gitDir, 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ngit --git-dir="${repo.gitDir}" update-ref refs/pull/1/head ${feature[0]}\n`);
    chmodSync(hook, 0o755);
    const before = (await fixture.pushedEvents()).length;
    const error = await rejection(merges.merge(mergeRequest(repo, 'rebase', { head: 'refs/pull/1/head', expectedHeadCommitId: feature[1] })));
    expect([error.code, error.reason]).toEqual([Code.FAILED_PRECONDITION, 'head_out_of_date']);
    expect(rev(repo, 'main')).toBe(mainTip);
    expect(await fixture.pushedEvents()).toHaveLength(before);
  });

  it('refuses bad input with INVALID_ARGUMENT before touching anything', async () => {
    const { repo, mainTip } = diverged();
    const cases: Partial<MergeRequest>[] = [
      { style: 'octopus' },
      { style: '' },
      { baseBranch: 'a..b' },
      { head: '-n' },
      { expectedHeadCommitId: 'xyz' },
      { expectedHeadCommitId: 'abcd' },
      { message: '   ' },
      { author: undefined, committer: undefined },
      { author: { ...AUTHOR, timezone: 'bad' } },
      { push: undefined },
    ];
    for (const fields of cases) {
      const error = await rejection(merges.merge(mergeRequest(repo, 'merge', fields)));
      expect([JSON.stringify(fields), error.code]).toEqual([JSON.stringify(fields), Code.INVALID_ARGUMENT]);
    }
    expect(rev(repo, 'main')).toBe(mainTip);
  });
});

describe('SyncPullHead', () => {
  it('points refs/pull/<index>/head at a branch of the same repository or of a fork', async () => {
    const { repo, feature } = diverged();
    expect(await merges.syncPullHead({ base: repo.repository, head: repo.repository, headBranch: 'feature', index: 3 })).toEqual({
      headCommitId: feature[1],
    });
    expect(rev(repo, 'refs/pull/3/head')).toBe(feature[1]);

    const fork = fixture.newRepository();
    git(['push', '--quiet', fork.gitDir, 'refs/heads/main:refs/heads/main'], { cwd: repo.gitDir });
    git(['update-ref', 'refs/heads/topic', rev(repo, 'main')], { cwd: fork.gitDir });
    const [forkTip] = fixture.commitOn(fork, 'topic', [{ files: { 'fork.txt': 'fork\n' }, message: 'from the fork', at: T0 + 600 }]);
    expect(await merges.syncPullHead({ base: repo.repository, head: fork.repository, headBranch: 'topic', index: 4 })).toEqual({
      headCommitId: forkTip,
    });
    expect(rev(repo, 'refs/pull/4/head')).toBe(forkTip);
    expect((await checkMerge(repo, 'refs/pull/4/head')).status).toBe('mergeable');
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge', { head: 'refs/pull/4/head', expectedHeadCommitId: forkTip }));
    expect(fileAt(repo, mergeCommitId, 'fork.txt')).toBe('fork\n');

    // Syncing again follows the branch (force: a rewritten branch is followed too).
    const rewound = rev(repo, 'feature~1');
    git(['push', '--quiet', '--force', fork.gitDir, `${rewound}:refs/heads/topic`], { cwd: repo.gitDir });
    expect((await merges.syncPullHead({ base: repo.repository, head: fork.repository, headBranch: 'topic', index: 4 })).headCommitId).toBe(rewound);
  });

  it('answers NOT_FOUND for a missing branch and INVALID_ARGUMENT for bad names and indexes', async () => {
    const { repo } = diverged();
    const missing = await rejection(merges.syncPullHead({ base: repo.repository, head: repo.repository, headBranch: 'gone', index: 1 }));
    expect([missing.code, missing.reason]).toEqual([Code.NOT_FOUND, 'branch_not_found']);
    const fork = fixture.newRepository();
    expect((await rejection(merges.syncPullHead({ base: repo.repository, head: fork.repository, headBranch: 'gone', index: 1 }))).code).toBe(Code.NOT_FOUND);
    for (const [headBranch, index] of [['-f', 1], ['x:y', 1], ['feature', 0], ['feature', -2]] as const) {
      const error = await rejection(merges.syncPullHead({ base: repo.repository, head: repo.repository, headBranch, index }));
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
    }
  });
});

describe('comparisons', () => {
  it('ListCommitsBetween pages the head-only commits newest first, with files when asked', async () => {
    const { repo, feature } = diverged();
    const all = await merges.listCommitsBetween({ repository: repo.repository, base: 'main', head: 'refs/heads/feature', page: { page: 1, limit: 0 }, withFiles: false, withVerification: false });
    expect(all.total).toBe(2);
    expect(all.commits.map((commit) => commit.sha)).toEqual([feature[1], feature[0]]);
    expect(all.commits[0]?.files).toEqual([]);
    const second = await merges.listCommitsBetween({ repository: repo.repository, base: 'refs/heads/main', head: feature[1]!, page: { page: 2, limit: 1 }, withFiles: true, withVerification: false });
    expect(second.total).toBe(2);
    expect(second.commits.map((commit) => [commit.message, commit.additions, commit.files.map((file) => file.filename)])).toEqual([
      ['feature one\n', 1, ['f.txt']],
    ]);
    const beyond = await merges.listCommitsBetween({ repository: repo.repository, base: 'main', head: 'feature', page: { page: 1_000_000_000, limit: 1_000_000_000 }, withFiles: false, withVerification: false });
    expect(beyond).toEqual({ commits: [], total: 2 });
    const negative = await rejection(merges.listCommitsBetween({ repository: repo.repository, base: 'main', head: 'feature', page: { page: -1, limit: 5 }, withFiles: false, withVerification: false }));
    expect(negative.code).toBe(Code.INVALID_ARGUMENT);
  });

  it('ListChangedFiles compares the head with the merge base, paged, with totals', async () => {
    const { repo } = diverged({ 'm.txt': 'main\n' }, { 'f.txt': 'one\ntwo\n', 'b.txt': null });
    const request = { repository: repo.repository, base: 'main', head: 'feature' };
    const all = await merges.listChangedFiles({ ...request, page: { page: 1, limit: 0 } });
    expect(all.files.map((file) => [file.filename, file.status, file.additions, file.deletions])).toEqual([
      ['b.txt', 'removed', 0, 1],
      ['f.txt', 'added', 2, 0],
      ['g.txt', 'added', 1, 0],
    ]);
    expect([all.total, all.additions, all.deletions]).toEqual([3, 3, 1]);
    const page = await merges.listChangedFiles({ ...request, page: { page: 2, limit: 2 } });
    expect(page.files.map((file) => file.filename)).toEqual(['g.txt']);
    expect([page.total, page.additions, page.deletions]).toEqual([3, 3, 1]);
  });

  it('GetDiff streams base...head as a diff and base..head as patches', async () => {
    const { repo } = diverged();
    const request = { repository: repo.repository, base: 'main', head: 'feature', binary: false };
    const diff = Buffer.concat((await collect(merges.getDiff({ ...request, format: 'diff' }))).map((chunk) => chunk.data)).toString('utf8');
    expect(diff).toContain('diff --git a/f.txt b/f.txt\nnew file mode 100644');
    expect(diff).toContain('+second\n');
    expect(diff).not.toContain('m.txt');
    const patch = Buffer.concat((await collect(merges.getDiff({ ...request, format: 'patch', binary: true }))).map((chunk) => chunk.data)).toString('utf8');
    expect(patch.match(/^From [0-9a-f]{40} /gm)).toHaveLength(2);
    expect(patch.indexOf('Subject: [PATCH 1/2] feature one')).toBeLessThan(patch.indexOf('Subject: [PATCH 2/2] feature two'));
    expect((await rejection(collect(merges.getDiff({ ...request, format: 'html' })))).code).toBe(Code.INVALID_ARGUMENT);

    const binary = diverged({ 'm.txt': 'main\n' }, { 'x.bin': 'bin\0ary' });
    const read = async (withBinary: boolean) =>
      Buffer.concat((await collect(merges.getDiff({ ...request, repository: binary.repo.repository, format: 'diff', binary: withBinary })))
        .map((chunk) => chunk.data)).toString('utf8');
    expect(await read(false)).toContain('Binary files /dev/null and b/x.bin differ');
    expect(await read(true)).toContain('GIT binary patch');
    expect((await rejection(collect(merges.getDiff({ ...request, head: 'nope', format: 'diff' })))).code).toBe(Code.NOT_FOUND);
  });

  it('IsAncestor says whether a commit exists and is in a ref', async () => {
    const { repo, root, feature } = diverged();
    const ask = (commit: string, ref: string) => merges.isAncestor({ repository: repo.repository, commit, ref });
    expect(await ask(root, 'main')).toEqual({ exists: true, ancestor: true });
    expect(await ask(feature[0]!, 'refs/heads/main')).toEqual({ exists: true, ancestor: false });
    expect(await ask('0123456789'.repeat(4), 'main')).toEqual({ exists: false, ancestor: false });
    expect((await rejection(ask(root.slice(0, 10), 'main'))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await rejection(ask(root, 'no..pe'))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await rejection(ask(root, 'gone'))).code).toBe(Code.NOT_FOUND);
  });
});

describe('FindMergeCommit', () => {
  const find = (repo: TestRepository, head: string, baseBranch = 'main') => merges.findMergeCommit({ repository: repo.repository, baseBranch, head });

  it('finds the first merge commit between the head and the base, or the head itself after a fast-forward', async () => {
    const { repo, feature } = diverged();
    const head = feature[1]!;
    expect(await find(repo, 'refs/heads/feature')).toEqual({ found: false, commit: undefined });

    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    // main moves on with another commit and a later merge: the first merge stays the one found.
    fixture.commitOn(repo, 'main', [{ files: { 'later.txt': 'later\n' }, message: 'later', at: T0 + 600 }]);
    git(['update-ref', 'refs/heads/other', rev(repo, 'main~1')], { cwd: repo.gitDir });
    fixture.commitOn(repo, 'other', [{ files: { 'o.txt': 'other\n' }, message: 'other', at: T0 + 700 }]);
    await merges.merge(mergeRequest(repo, 'merge', { head: 'refs/heads/other' }));
    const found = await find(repo, head);
    expect(found).toMatchObject({
      found: true,
      commit: { sha: mergeCommitId, parentShas: [expect.any(String), head], author: { name: AUTHOR.name, email: AUTHOR.email, when: AUTHOR.when } },
    });
    expect(found.commit?.committer).toMatchObject({ email: COMMITTER.email, when: COMMITTER.when });
    expect(await find(repo, 'refs/heads/feature')).toEqual(found);

    const ff = diverged();
    git(['update-ref', 'refs/heads/main', ff.feature[1]!], { cwd: ff.repo.gitDir });
    expect(await find(ff.repo, ff.feature[1]!)).toMatchObject({ found: true, commit: { sha: ff.feature[1], message: 'feature two\n' } });
  });

  it('refuses bad names and answers NOT_FOUND for a missing branch or head', async () => {
    const { repo, root } = diverged();
    expect((await rejection(find(repo, root, 'no..pe'))).code).toBe(Code.INVALID_ARGUMENT);
    expect(await rejection(find(repo, root, 'gone'))).toMatchObject({ code: Code.NOT_FOUND, reason: 'branch_not_found' });
    expect(await rejection(find(repo, '0123456789'.repeat(4)))).toMatchObject({ code: Code.NOT_FOUND, reason: 'revision_not_found' });
  });
});
