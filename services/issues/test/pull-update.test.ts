/**
 * UpdatePull against fake git-storage, repos and accounts servers: who may update (push rights on the head branch,
 * force-push and allow_rebase_update for a rebase, maintainers through allow_maintainer_edit), what git-storage is
 * asked (Gitea's message, the updater as committer, the head repository), Gitea's refusals (merged, closed, up to
 * date, conflicts); also the list's base_branch filter and content_version on EditPull.
 */
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { CreatePullRequest, EditPullRequest, type PullServiceService, type PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code, type RpcClient } from '@cairn/rpc';
import { type BranchRights, type FakeGitRepos, NO_RIGHTS } from './fake-git-repos';
import type { Mode, ServiceHarness } from './harness';
import { configuredRepo, createPull, failure, type FakeRepo as Repo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const POSTER = 21;
const WRITER = 22; // writes the base repository
const STRANGER = 23;

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;
let pulls: RpcClient<typeof PullServiceService>;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake, pulls } = fixture);
  for (const id of [POSTER, WRITER, STRANGER]) fixture.accounts.users.set(id, User.fromPartial({ id, login: `user${id}` }));
});

afterAll(() => fixture.stop());

beforeEach(() => {
  fake.reset();
  // Nobody may push, force-push or merge but as `grant` says.
  fake.otherRights = NO_RIGHTS;
});

/** A repository with branches main and feature; `allowRebaseUpdate` as asked (Gitea's default: on). */
const newRepo = (settings: Partial<Repository> = {}): Repo => configuredRepo(fake, { allowRebaseUpdate: true, ...settings });

function grant(userId: number, repoId: number, branch: string, rights: Partial<BranchRights>): void {
  fake.rights.set(`${userId}:${repoId}:${branch}`, { ...NO_RIGHTS, ...rights });
}

const openPull = (repo: Repo, fields: Partial<CreatePullRequest> = {}): Promise<PullRequest> =>
  createPull(fixture, CreatePullRequest.fromPartial({ scope: repo.scopeOf(POSTER, 'read'), headBranch: 'feature', baseBranch: 'main', title: 'Add feature', ...fields }));

const update = (repo: Repo, userId: number, index: number, style = '', mode: Mode = 'write') =>
  pulls.updatePull({ scope: repo.scopeOf(userId, mode), index, style, updaterName: `User ${userId}`, updaterEmail: `u${userId}@example.com`, updaterLogin: `user${userId}` });

const edit = (repo: Repo, userId: number, index: number, fields: Partial<EditPullRequest>) =>
  pulls.editPull(EditPullRequest.fromPartial({ scope: repo.scopeOf(userId, 'read'), index, ...fields }));

describe('UpdatePull', () => {
  test('a pusher of the head branch merges the base into it: Gitea\'s message, the updater commits, the pull request is re-checked', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    grant(WRITER, repo.id, 'feature', { push: true });
    const { pull: updated } = await update(repo, WRITER, index, 'something-else');
    expect(fake.updates).toHaveLength(1);
    expect(fake.updates[0]).toMatchObject({
      baseRepository: { repoId: repo.id },
      baseBranch: 'main',
      headRepository: { repoId: repo.id },
      headBranch: 'feature',
      // Gitea merges for any style but "rebase".
      style: 'merge',
      message: "Merge branch 'main' into feature",
      committer: { name: `User ${WRITER}`, email: `u${WRITER}@example.com`, timezone: '+0000' },
      push: { pusherId: WRITER, pusherName: `user${WRITER}` },
    });
    expect(updated?.headCommitId).toBe(fake.tip(repo.id, 'feature'));
    expect(updated?.headCommitId).not.toBe(pull.headCommitId);
  });

  test('rebasing needs force-push and the base repository\'s allow_rebase_update', async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    grant(WRITER, repo.id, 'feature', { push: true });
    const refused = await failure(update(repo, WRITER, index, 'rebase'));
    expect([refused.code, refused.message]).toEqual([Code.PERMISSION_DENIED, '']);
    grant(WRITER, repo.id, 'feature', { push: true, forcePush: true });
    await update(repo, WRITER, index, 'rebase');
    expect(fake.updates.map((request) => request.style)).toEqual(['rebase']);

    const noRebase = newRepo({ allowRebaseUpdate: false });
    const other = (await openPull(noRebase)).issue?.index ?? 0;
    grant(WRITER, noRebase.id, 'feature', { push: true, forcePush: true });
    expect((await failure(update(noRebase, WRITER, other, 'rebase'))).code).toBe(Code.PERMISSION_DENIED);
    await update(noRebase, WRITER, other, 'merge');
  });

  test('a stranger may not; a maintainer who may merge inherits the poster\'s rights on a fork when maintainer edits are allowed', async () => {
    const base = newRepo();
    const fork = newRepo();
    Object.assign(fake.repositoriesById.get(fork.id) ?? {}, { fork: true, parentId: base.id });
    const head = { ...fork.scopeOf(POSTER, 'write').repository, repository: { ...fake.repositoriesById.get(fork.id), fork: true, parentId: base.id } as Repository };
    const pull = await openPull(base, { head: { repository: head.repository, permission: head.permission } });
    const index = pull.issue?.index ?? 0;
    expect(pull.headRepoId).toBe(fork.id);
    grant(POSTER, fork.id, 'feature', { push: true, forcePush: true });
    grant(WRITER, base.id, 'main', { merge: true });

    expect((await failure(update(base, STRANGER, index, '', 'read'))).code).toBe(Code.PERMISSION_DENIED);
    // Maintainer edits are off: merging into the base gives nothing on the fork.
    expect((await failure(update(base, WRITER, index))).code).toBe(Code.PERMISSION_DENIED);
    await edit(base, POSTER, index, { fields: ['allow_maintainer_edit'], allowMaintainerEdit: true });
    await update(base, WRITER, index, 'rebase');
    expect(fake.updates[0]).toMatchObject({ style: 'rebase', headRepository: { repoId: fork.id }, push: { pusherId: WRITER } });
    // Without the right to merge into the base, no inheritance.
    expect((await failure(update(base, STRANGER, index, '', 'read'))).code).toBe(Code.PERMISSION_DENIED);
  });

  test('Gitea\'s refusals: merged or closed, up to date, conflicts, a head that moved', async () => {
    const repo = newRepo();
    grant(WRITER, repo.id, 'feature', { push: true, forcePush: true });
    const index = (await openPull(repo)).issue?.index ?? 0;

    fake.updateError = CairnError.precondition('already contains', { reason: 'up_to_date' });
    const upToDate = await failure(update(repo, WRITER, index));
    expect([upToDate.code, upToDate.message]).toEqual([Code.FAILED_PRECONDITION, `HeadBranch of PR ${index} is up to date`]);
    fake.updateError = new CairnError(Code.ABORTED, 'merge conflict in: a.txt', { reason: 'merge_conflict' });
    expect((await failure(update(repo, WRITER, index))).message).toBe('merge failed because of conflict');
    const rebaseConflict = await failure(update(repo, WRITER, index, 'rebase'));
    expect([rebaseConflict.code, rebaseConflict.message]).toEqual([Code.ABORTED, 'rebase failed because of conflict']);
    fake.updateError = CairnError.precondition('moved', { reason: 'head_out_of_date' });
    expect((await failure(update(repo, WRITER, index))).code).toBe(Code.ABORTED);
    fake.updateError = undefined;

    await edit(repo, POSTER, index, { fields: ['state'], state: 'closed' });
    const closed = await failure(update(repo, WRITER, index));
    expect([closed.code, closed.message]).toEqual([Code.FAILED_PRECONDITION, 'The PR is closed']);
    await edit(repo, POSTER, index, { fields: ['state'], state: 'open' });
    await h.sql.query('UPDATE pull_requests p SET has_merged = true FROM issues i WHERE i.id = p.issue_id AND i.repo_id = $1 AND i.index = $2', [repo.id, index]);
    const merged = await failure(update(repo, WRITER, index));
    expect([merged.code, merged.message]).toEqual([Code.FAILED_PRECONDITION, 'The PR is already merged']);
    expect((await failure(update(repo, WRITER, index + 100))).code).toBe(Code.NOT_FOUND);
    expect(fake.updates.filter((request) => request.headBranch === 'feature')).toHaveLength(4);
  });
});

describe('ListPulls base_branch and EditPull content_version', () => {
  test('the list keeps the pull requests into the base branch asked for', async () => {
    const repo = newRepo();
    fake.setBranch(repo.id, 'dev', SHA(repo.id * 10 + 2));
    const intoMain = await openPull(repo);
    const intoDev = await openPull(repo, { baseBranch: 'dev' });
    const list = (baseBranch: string) =>
      pulls.listPulls({ scope: repo.scopeOf(0, 'read'), state: 'all', sort: 'oldest', milestoneId: 0, labelIds: [], posterId: 0, page: undefined, baseBranch });
    expect((await list('')).pulls.map((pull) => pull.issue?.index)).toEqual([intoMain.issue?.index, intoDev.issue?.index]);
    const dev = await list('dev');
    expect([dev.pulls.map((pull) => pull.issue?.index), dev.total]).toEqual([[intoDev.issue?.index], 1]);
    expect((await list('nope')).total).toBe(0);
  });

  test('a body sent with another content_version is refused; the current one edits', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    const version = pull.issue?.contentVersion ?? 0;
    const stale = await failure(edit(repo, POSTER, index, { fields: ['body', 'content_version'], body: 'new', contentVersion: version + 5 }));
    expect([stale.code, stale.message]).toEqual([Code.ABORTED, 'the issue is already changed']);
    const { pull: edited } = await edit(repo, POSTER, index, { fields: ['body', 'content_version'], body: 'new', contentVersion: version });
    expect([edited?.issue?.body, edited?.issue?.contentVersion]).toEqual(['new', version + 1]);
    // Without content_version the body is taken as it is.
    expect((await edit(repo, POSTER, index, { fields: ['body'], body: 'newer' })).pull?.issue?.body).toBe('newer');
  });
});
