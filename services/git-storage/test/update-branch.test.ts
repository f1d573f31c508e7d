/**
 * MergeService.UpdateBranch against real repositories: a head branch brought up to date with its base by a merge
 * commit or by a rebase, in the same repository and in a fork, conflicts, "already up to date", the
 * compare-and-swap of the head branch, cairn.git.pushed for the head repository and bad input.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { MergeServiceService, type Signature, type UpdateBranchRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { Code, type RpcClient, type RpcServer, createRpcClient, createRpcServer, anyCaller } from '@cairn/rpc';
import { silentLogger } from '@cairn/log';
import { createMergeService } from '../src/rpc/merge-service';
import { type GitStorageFixture, PUSH, type TestRepository, git, rejection, startGitStorageFixture } from './git-repo-fixture';

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
const UPDATER: Signature = { name: 'Updater', email: 'updater@example.com', when: new Date('2024-05-06T07:08:09Z'), timezone: '+0200' };

const rev = (repo: TestRepository, spec: string) => git(['rev-parse', spec], { cwd: repo.gitDir }).stdout.trim();
const show = (repo: TestRepository, format: string, spec: string) => git(['show', '-s', `--format=${format}`, spec], { cwd: repo.gitDir }).stdout.trim();
const isAncestor = (repo: TestRepository, a: string, b: string) => git(['rev-list', `${b}..${a}`], { cwd: repo.gitDir }).stdout.trim() === '';
const refsUnder = (repo: TestRepository, prefix: string) =>
  git(['for-each-ref', '--format=%(refname)', prefix], { cwd: repo.gitDir }).stdout.split('\n').filter(Boolean);

/** main: root (a.txt); feature: two commits from it; main: one more commit touching `mainFiles`. */
function behind(mainFiles: Record<string, string | null> = { 'm.txt': 'main\n' }, featureFiles: Record<string, string | null> = { 'f.txt': 'feature\n' }) {
  const repo = fixture.newRepository();
  const [root] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n' }, message: 'root', at: T0 }]);
  git(['update-ref', 'refs/heads/feature', root!], { cwd: repo.gitDir });
  const feature = fixture.commitOn(repo, 'feature', [
    { files: featureFiles, message: 'feature one', at: T0 + 60 },
    { files: { 'g.txt': 'second\n' }, message: 'feature two', at: T0 + 120 },
  ]);
  const [mainTip] = fixture.commitOn(repo, 'main', [{ files: mainFiles, message: 'main moves', at: T0 + 180 }]);
  return { repo, root: root!, feature, mainTip: mainTip! };
}

function updateRequest(base: TestRepository, style: string, fields: Partial<UpdateBranchRequest> = {}): UpdateBranchRequest {
  return {
    baseRepository: base.repository,
    baseBranch: 'main',
    headRepository: base.repository,
    headBranch: 'feature',
    style,
    message: "Merge branch 'main' into feature",
    committer: UPDATER,
    expectedHeadCommitId: '',
    push: PUSH,
    ...fields,
  };
}

describe('UpdateBranch', () => {
  it('"merge" commits a merge of the base into the head on the head branch and publishes the move', async () => {
    const { repo, feature, mainTip } = behind();
    const before = (await fixture.pushedEvents()).length;
    const answer = await merges.updateBranch(updateRequest(repo, 'merge'));
    expect(answer).toEqual({ oldHeadCommitId: feature[1], newHeadCommitId: rev(repo, 'feature'), baseCommitId: mainTip });
    const merge = answer.newHeadCommitId;
    // The head is the first parent, as `git merge main` run on feature.
    expect(show(repo, '%P', merge)).toBe(`${feature[1]} ${mainTip}`);
    expect(show(repo, '%an <%ae> %ad|%cn <%ce>', merge)).toBe('Updater <updater@example.com> Mon May 6 09:08:09 2024 +0200|Updater <updater@example.com>');
    expect(show(repo, '%B', merge)).toBe("Merge branch 'main' into feature");
    expect(rev(repo, 'main')).toBe(mainTip);
    const events = (await fixture.pushedEvents()).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ repoId: repo.repository.repoId, pusherId: PUSH.pusherId, refUpdates: [{ ref: 'refs/heads/feature', oldSha: feature[1], newSha: merge }] });

    // Now the head contains the base: nothing to do.
    const again = await rejection(merges.updateBranch(updateRequest(repo, 'merge')));
    expect([again.code, again.reason]).toEqual([Code.FAILED_PRECONDITION, 'up_to_date']);
  });

  it('"rebase" replays the head\'s commits on the base, keeping their authors', async () => {
    const { repo, feature, mainTip } = behind();
    const { newHeadCommitId } = await merges.updateBranch(updateRequest(repo, 'rebase', { message: '' }));
    expect(rev(repo, 'feature')).toBe(newHeadCommitId);
    expect(show(repo, '%P', `${newHeadCommitId}~1`)).toBe(mainTip);
    expect(git(['log', '--format=%s|%an|%cn', `${mainTip}..${newHeadCommitId}`], { cwd: repo.gitDir }).stdout.trim().split('\n')).toEqual([
      'feature two|Tester|Updater',
      'feature one|Tester|Updater',
    ]);
    expect(isAncestor(repo, feature[1]!, newHeadCommitId)).toBe(false);
    // No worktree is left behind.
    const scratch = path.join(fixture.context.root, 'default', '.tmp');
    expect(existsSync(scratch) ? readdirSync(scratch) : []).toEqual([]);
  });

  it('updates a fork\'s branch from the base repository, leaving no temporary ref', async () => {
    const { repo, mainTip, root } = behind();
    const fork = fixture.newRepository();
    git(['push', '--quiet', fork.gitDir, `${root}:refs/heads/topic`], { cwd: repo.gitDir });
    const [forkTip] = fixture.commitOn(fork, 'topic', [{ files: { 'fork.txt': 'fork\n' }, message: 'from the fork', at: T0 + 600 }]);
    const before = (await fixture.pushedEvents()).length;
    const request = updateRequest(repo, 'merge', { headRepository: fork.repository, headBranch: 'topic', expectedHeadCommitId: forkTip! });
    const { newHeadCommitId } = await merges.updateBranch(request);
    expect(rev(fork, 'topic')).toBe(newHeadCommitId);
    expect(show(fork, '%P', newHeadCommitId)).toBe(`${forkTip} ${mainTip}`);
    expect(refsUnder(fork, 'refs/cairn')).toEqual([]);
    const events = (await fixture.pushedEvents()).slice(before);
    expect(events.map((event) => event.repoId)).toEqual([fork.repository.repoId]);

    // Rebasing a fork's branch works the same way.
    fixture.commitOn(repo, 'main', [{ files: { 'n.txt': 'n\n' }, message: 'main again', at: T0 + 700 }]);
    const rebased = await merges.updateBranch({ ...request, style: 'rebase', expectedHeadCommitId: '' });
    expect(isAncestor(fork, rebased.baseCommitId, rebased.newHeadCommitId)).toBe(true);
    expect(refsUnder(fork, 'refs/cairn')).toEqual([]);
  });

  it('refuses conflicts (merge and rebase) and leaves the head branch where it was', async () => {
    const { repo, feature } = behind({ 'a.txt': 'main a\n' }, { 'a.txt': 'feature a\n' });
    for (const style of ['merge', 'rebase']) {
      const refused = await rejection(merges.updateBranch(updateRequest(repo, style)));
      expect([refused.code, refused.reason, refused.message]).toEqual([Code.ABORTED, 'merge_conflict', 'merge conflict in: a.txt']);
      expect(rev(repo, 'feature')).toBe(feature[1]);
    }
  });

  it('refuses a head that is not the expected one, unknown styles, missing branches and a missing push context', async () => {
    const { repo, root } = behind();
    const moved = await rejection(merges.updateBranch(updateRequest(repo, 'merge', { expectedHeadCommitId: root })));
    expect([moved.code, moved.reason]).toEqual([Code.FAILED_PRECONDITION, 'head_out_of_date']);
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'squash')))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'merge', { message: ' ' })))).reason).toBe('message_required');
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'merge', { headBranch: '-x' })))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'merge', { headBranch: 'gone' })))).reason).toBe('branch_not_found');
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'merge', { baseBranch: 'gone' })))).reason).toBe('branch_not_found');
    expect((await rejection(merges.updateBranch(updateRequest(repo, 'merge', { push: undefined })))).code).toBe(Code.INVALID_ARGUMENT);
    const fork = fixture.newRepository();
    git(['push', '--quiet', fork.gitDir, `${root}:refs/heads/feature`], { cwd: repo.gitDir });
    const missingBase = await rejection(merges.updateBranch(updateRequest(repo, 'merge', { headRepository: fork.repository, baseBranch: 'gone' })));
    expect(missingBase.reason).toBe('branch_not_found');
    expect(refsUnder(fork, 'refs/cairn')).toEqual([]);
  });
});
