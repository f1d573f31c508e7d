import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import { IssueEvent, PullRequestEvent } from '@cairn/proto/cairn/issues/v1/events';
import { CreateIssueRequest, EditIssueRequest } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CreatePullRequest, EditPullRequest, MergePullRequest, type PullServiceService, type PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { BranchProtection, type Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code, type RpcClient } from '@cairn/rpc';
import { Refusal } from '../src/domain/merge-rules';
import { ALL_RIGHTS, type FakeGitRepos, NO_RIGHTS } from './fake-git-repos';
import { decoded, type Mode, publishPush as publishPushed, readUntil, type ServiceHarness } from './harness';
import { configuredRepo, createPull, failure, type FakeRepo as Repo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const ALICE = 11; // writer, the merger
const BOB = 12; // the pull request's poster
const ADMIN = 13;

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;
let pulls: RpcClient<typeof PullServiceService>;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake, pulls } = fixture);
});

afterAll(() => fixture.stop());

beforeEach(() => fake.reset());

/** A repository with branches main and feature, every merge style allowed but the manual one unless asked. */
const newRepo = (settings: Partial<Repository> = {}): Repo =>
  configuredRepo(fake, {
    objectFormatName: 'sha1',
    allowMergeCommits: true,
    allowRebase: true,
    allowRebaseExplicit: true,
    allowSquashMerge: true,
    allowFastForwardOnlyMerge: true,
    allowManualMerge: false,
    ...settings,
  });

const openPull = (repo: Repo, title = 'Add feature', headBranch = 'feature', body = 'Body'): Promise<PullRequest> =>
  createPull(fixture, CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch, baseBranch: 'main', title, body }));

function mergeRequest(repo: Repo, index: number, partial: Partial<MergePullRequest> = {}, userId = ALICE, mode: Mode = 'write'): MergePullRequest {
  return MergePullRequest.fromPartial({ scope: repo.scopeOf(userId, mode), index, style: 'merge', mergerName: 'Alice', mergerEmail: 'alice@example.com', ...partial });
}

async function expectRefused(call: Promise<unknown>, message: string): Promise<void> {
  const error = await failure(call);
  expect({ code: error.code, message: error.message, reason: error.reason }).toEqual({ code: Code.FAILED_PRECONDITION, message, reason: 'merge_refused' });
}

async function pullRow(repoId: number, index: number): Promise<Record<string, unknown>> {
  const { rows } = await h.sql.query(
    `SELECT p.*, i.is_closed, i.closed_at FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = $1 AND i.index = $2`,
    [repoId, index],
  );
  return rows[0] as Record<string, unknown>;
}

/**
 * Opens a pull request and waits until the `issues-pulls` consumer has checked it for its opened event, so that
 * check (of the branches as they were) cannot land after a test moves them.
 */
async function openSettled(repo: Repo): Promise<PullRequest> {
  const seq = await h.lastSeq();
  const pull = await openPull(repo);
  const opened = (await h.outbox(seq)).find((event) => event.subject === 'cairn.pull_request.opened');
  await readUntil(
    async () => (await h.sql.query("SELECT 1 FROM cairn_processed_events WHERE consumer = 'issues-pulls' AND event_id = $1", [opened?.id])).rowCount ?? 0,
    (count) => count > 0,
  );
  return pull;
}

describe('merging', () => {
  it('merges a mergeable pull request, closes it and publishes merged and closed', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    expect(pull.status).toBe('mergeable');
    const index = pull.issue?.index ?? 0;
    const seq = await h.lastSeq();
    const { pull: merged } = await pulls.mergePull(mergeRequest(repo, index));
    expect(fake.merges).toHaveLength(1);
    const call = fake.merges[0];
    expect(call).toMatchObject({
      repository: { storage: 'default', repoId: repo.id },
      baseBranch: 'main',
      head: `refs/pull/${index}/head`,
      style: 'merge',
      // The head the pull request's status and reviews were computed for, though the merger named none.
      expectedHeadCommitId: pull.headCommitId,
      message: `Merge pull request 'Add feature' (#${index}) from feature into main`,
      author: { name: 'Alice', email: 'alice@example.com' },
      committer: { name: 'Alice', email: 'alice@example.com' },
      push: { pusherId: ALICE, repoOwnerId: 100 },
      // Always asked to sign (Gitea signs whenever the MERGES rules allow); required only by a protection rule.
      sign: true,
      requireSigned: false,
      approved: false,
    });
    expect(merged).toMatchObject({ hasMerged: true, mergerId: ALICE, mergedCommitId: fake.branches.get(repo.id)?.get('main'), issue: { isClosed: true } });
    expect(merged?.mergedAt).toBeInstanceOf(Date);
    const row = await pullRow(repo.id, index);
    expect(row).toMatchObject({ has_merged: true, merge_style: 'merge', merger_id: String(ALICE), is_closed: true });
    const events = await h.outbox(seq);
    const mergedEvent = events.find((event) => event.subject === 'cairn.pull_request.merged');
    expect(mergedEvent && decoded(PullRequestEvent, mergedEvent)).toMatchObject({ mergeStyle: 'merge', meta: { actorId: ALICE, repoId: repo.id }, pull: { hasMerged: true } });
    const closed = events.find((event) => event.subject === 'cairn.issue.closed');
    expect(closed && decoded(IssueEvent, closed)).toMatchObject({ issue: { index, isClosed: true }, changed: ['state'] });

    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.alreadyMerged);
    expect(fake.merges).toHaveLength(1);
  });

  it('uses the given title and message, the squash default, and the expected head', async () => {
    const repo = newRepo();
    const first = await openPull(repo);
    await pulls.mergePull(mergeRequest(repo, first.issue?.index ?? 0, { style: 'squash', message: ' details ' }));
    expect(fake.merges[0]).toMatchObject({ style: 'squash', message: `Add feature (#${first.issue?.index})\n\ndetails` });
    fake.setBranch(repo.id, 'other', SHA(77));
    const second = await openPull(repo, 'Other', 'other');
    await pulls.mergePull(mergeRequest(repo, second.issue?.index ?? 0, { style: 'rebase-merge', title: ' Own title ', headCommitId: SHA(77) }));
    expect(fake.merges[1]).toMatchObject({ style: 'rebase-merge', message: 'Own title', expectedHeadCommitId: SHA(77) });
  });

  it("answers a moved head, a base that moved, a conflict and a missing signing key as Gitea's 409/405", async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    const headMoved = await failure(pulls.mergePull(mergeRequest(repo, index, { headCommitId: SHA(1) })));
    expect({ code: headMoved.code, message: headMoved.message }).toEqual({ code: Code.ABORTED, message: 'head out of date' });
    fake.mergeError = CairnError.precondition('base branch moved', { reason: 'base_out_of_date' });
    const baseMoved = await failure(pulls.mergePull(mergeRequest(repo, index)));
    expect({ code: baseMoved.code, message: baseMoved.message }).toEqual({ code: Code.ABORTED, message: 'merge push out of date' });
    fake.mergeError = new CairnError(Code.ABORTED, 'merge conflict in a.txt', { reason: 'merge_conflict' });
    const conflict = await failure(pulls.mergePull(mergeRequest(repo, index)));
    expect({ code: conflict.code, reason: conflict.reason }).toEqual({ code: Code.ABORTED, reason: 'merge_conflict' });
    fake.mergeError = CairnError.precondition('wont sign: nokey');
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', requireSignedCommits: true }));
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), 'wont sign: nokey');
    expect(fake.merges.at(-1)).toMatchObject({ sign: true, requireSigned: true, approved: false });
    expect((await pullRow(repo.id, index)).has_merged).toBe(false);
  });

  it('refuses with 409 a head that is not the one the checks and approvals were computed for, merging nothing', async () => {
    const repo = newRepo();
    // Settled: the opened event's own check would otherwise record whatever the head ref holds when it runs.
    const pull = await openSettled(repo);
    const index = pull.issue?.index ?? 0;
    expect(pull.headCommitId).toBe(fake.tip(repo.id, 'feature'));
    const main = fake.tip(repo.id, 'main');
    // refs/pull/<index>/head moved (a push to it, or a head whose check has not run yet) without the row following.
    fake.heads.set(`${repo.id}:${index}`, SHA(99));
    const moved = await failure(pulls.mergePull(mergeRequest(repo, index)));
    expect({ code: moved.code, message: moved.message, reason: moved.reason }).toEqual({ code: Code.ABORTED, message: 'head out of date', reason: 'head_out_of_date' });
    // git-storage was asked to merge the recorded head only, and refused the moved ref.
    expect(fake.merges.map((call) => call.expectedHeadCommitId)).toEqual([pull.headCommitId]);
    // Naming the moved head does not help: it is not the head the pull request was checked on.
    const named = await failure(pulls.mergePull(mergeRequest(repo, index, { headCommitId: SHA(99) })));
    expect({ code: named.code, message: named.message }).toEqual({ code: Code.ABORTED, message: 'head out of date' });
    expect(fake.merges).toHaveLength(1);
    expect(fake.tip(repo.id, 'main')).toBe(main);
    expect((await pullRow(repo.id, index)).has_merged).toBe(false);
  });

  it('refuses styles the repository does not allow, with the style in the message', async () => {
    const repo = newRepo({ allowSquashMerge: false, allowFastForwardOnlyMerge: false });
    const index = (await openPull(repo)).issue?.index ?? 0;
    await expectRefused(pulls.mergePull(mergeRequest(repo, index, { style: 'squash' })), 'squash is not allowed an allowed merge style for this repository');
    await expectRefused(
      pulls.mergePull(mergeRequest(repo, index, { style: 'fast-forward-only' })),
      'fast-forward-only is not allowed an allowed merge style for this repository',
    );
    const unknown = await failure(pulls.mergePull(mergeRequest(repo, index, { style: 'octopus' })));
    expect(unknown.code).toBe(Code.INVALID_ARGUMENT);
    expect(fake.merges).toHaveLength(0);
  });

  it('refuses users who may not merge, work in progress and pull requests that are not mergeable', async () => {
    const repo = newRepo();
    const index = (await openPull(repo, 'WIP: not yet')).issue?.index ?? 0;
    fake.otherRights = NO_RIGHTS;
    await expectRefused(pulls.mergePull(mergeRequest(repo, index, {}, BOB, 'read')), Refusal.notAllowed);
    fake.otherRights = ALL_RIGHTS;
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.workInProgress);
    const anonymous = await failure(pulls.mergePull(mergeRequest(repo, index, {}, 0)));
    expect(anonymous.code).toBe(Code.UNAUTHENTICATED);
    const missing = await failure(pulls.mergePull(mergeRequest(repo, 999)));
    expect(missing.code).toBe(Code.NOT_FOUND);

    fake.mergeStatus = 'conflict';
    fake.conflictedFiles = ['a.txt'];
    fake.setBranch(repo.id, 'conflicting', SHA(31));
    const conflicted = await openPull(repo, 'Conflicting', 'conflicting');
    expect(conflicted).toMatchObject({ status: 'conflict', conflictedFiles: ['a.txt'] });
    await expectRefused(pulls.mergePull(mergeRequest(repo, conflicted.issue?.index ?? 0)), Refusal.notMergeable);
    expect(fake.merges).toHaveLength(0);
  });

  it('refuses a closed pull request as not found', async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    await h.sql.query('UPDATE issues SET is_closed = true WHERE repo_id = $1 AND index = $2', [repo.id, index]);
    expect((await failure(pulls.mergePull(mergeRequest(repo, index)))).code).toBe(Code.NOT_FOUND);
  });
});

describe('issues the merged pull request names with a keyword', () => {
  const CLOSE = 2;
  const REOPEN = 1;

  const newIssue = async (repo: Repo, title: string, posterId = BOB): Promise<number> =>
    (await h.issues.createIssue(CreateIssueRequest.fromPartial({ scope: repo.scopeOf(posterId), title }))).issue?.index ?? 0;

  async function states(repoId: number): Promise<Record<number, boolean>> {
    const { rows } = await h.sql.query<{ index: string; is_closed: boolean }>('SELECT index, is_closed FROM issues WHERE repo_id = $1 AND NOT is_pull', [repoId]);
    return Object.fromEntries(rows.map((row) => [Number(row.index), row.is_closed]));
  }

  it('closes and reopens them as the merger, with timeline entries and events; the last word on an issue counts', async () => {
    const repo = newRepo();
    const [fixed, resolved, reopened, untouched, twice] = [
      await newIssue(repo, 'fixed'),
      await newIssue(repo, 'resolved'),
      await newIssue(repo, 'reopened'),
      await newIssue(repo, 'untouched'),
      await newIssue(repo, 'twice'),
    ];
    await h.issues.editIssue(EditIssueRequest.fromPartial({ scope: repo.scopeOf(BOB), index: reopened, fields: ['state'], state: 'closed' }));
    const name = `owner100/repo${repo.id}`;
    const body = [
      `Resolves ${name.toUpperCase()}#${resolved}, reopens #${reopened}.`,
      `See #${untouched}; \`closes #${untouched}\` is code.`,
      `Closes #${twice} and reopens #${twice}.`,
      `Fixes other/repo#${untouched}, fixes #999 and closes #0.`,
    ].join('\n');
    const pull = await openPull(repo, `Fixes #${fixed}`, 'feature', body);
    const index = pull.issue?.index ?? 0;
    const seq = await h.lastSeq();
    await pulls.mergePull(mergeRequest(repo, index));

    expect(await states(repo.id)).toEqual({ [fixed]: true, [resolved]: true, [reopened]: false, [untouched]: false, [twice]: false });
    const entries = async (issue: number) => (await h.comments.listTimeline({ scope: repo.scopeOf(ALICE), index: issue })).entries;
    expect((await entries(fixed)).at(-1)).toMatchObject({ type: CLOSE, posterId: ALICE });
    expect((await entries(reopened)).at(-1)).toMatchObject({ type: REOPEN, posterId: ALICE });
    expect((await entries(untouched)).map((entry) => entry.type)).not.toContain(CLOSE);
    const events = (await h.outbox(seq)).filter((event) => event.subject === 'cairn.issue.closed' || event.subject === 'cairn.issue.reopened');
    expect(events.map((event) => [event.subject, decoded(IssueEvent, event).issue?.index, decoded(IssueEvent, event).meta?.actorId])).toEqual([
      ['cairn.issue.closed', index, ALICE],
      ['cairn.issue.closed', fixed, ALICE],
      ['cairn.issue.closed', resolved, ALICE],
      ['cairn.issue.reopened', reopened, ALICE],
    ]);
  });

  it("changes another repository's issues as the poster may: any they write, else only their own; unknown names are ignored", async () => {
    const repo = newRepo();
    const readOnly = newRepo();
    const writable = newRepo();
    const mine = await newIssue(readOnly, 'mine');
    const theirs = await newIssue(readOnly, 'theirs', ALICE);
    const elsewhere = await newIssue(writable, 'elsewhere', ALICE);
    const readerScope = readOnly.scopeOf(BOB, 'read').repository;
    if (readerScope !== undefined) fake.repositories.set(`${BOB}:${readOnly.id}`, readerScope);
    const nameOf = (r: Repo) => `owner100/repo${r.id}`;
    const body = `Fixes ${nameOf(readOnly)}#${mine}, fixes ${nameOf(readOnly)}#${theirs}, closes ${nameOf(writable)}#${elsewhere}, fixes nobody/missing#1`;
    const pull = await openPull(repo, 'Across repositories', 'feature', body);
    await pulls.mergePull(mergeRequest(repo, pull.issue?.index ?? 0));
    expect(await states(readOnly.id)).toEqual({ [mine]: true, [theirs]: false });
    expect(await states(writable.id)).toEqual({ [elsewhere]: true });
  });

  it('leaves pull requests, and everything when the issues unit is off or the merge is manual', async () => {
    const repo = newRepo({ allowManualMerge: true });
    const issue = await newIssue(repo, 'stays');
    fake.setBranch(repo.id, 'other', SHA(repo.id * 10 + 5));
    const other = await openPull(repo, 'Other', 'other');
    const pull = await openPull(repo, `Fixes #${issue}, closes #${other.issue?.index}`);
    fake.baseCommits.add(SHA(7));
    await pulls.mergePull(mergeRequest(repo, pull.issue?.index ?? 0, { style: 'manually-merged', mergeCommitId: SHA(7) }));
    expect(await states(repo.id)).toEqual({ [issue]: false });
    expect(await pullRow(repo.id, other.issue?.index ?? 0)).toMatchObject({ is_closed: false });

    const noIssues = newRepo();
    const hidden = await newIssue(noIssues, 'hidden');
    const scope = noIssues.scopeOf(ALICE);
    const repository = scope.repository?.repository;
    if (repository !== undefined) repository.units = repository.units.filter((unit) => unit.key !== 'repo.issues');
    const quiet = await openPull(noIssues, `Fixes #${hidden}`);
    await pulls.mergePull(MergePullRequest.fromPartial({ ...mergeRequest(noIssues, quiet.issue?.index ?? 0), scope }));
    expect(await states(noIssues.id)).toEqual({ [hidden]: false });
  });
});

describe('git writes', () => {
  it("wait [rpc] GIT_WRITE_DEADLINE_MS, not a lookup's DEADLINE_MS", async () => {
    const slow = await startPullFixture({ CAIRN__rpc__DEADLINE_MS: '300' });
    try {
      const repo = configuredRepo(slow.git, { allowMergeCommits: true });
      const pull = await createPull(slow, CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'feature', baseBranch: 'main', title: 'Slow' }));
      slow.git.writeDelayMs = 900;
      const { pull: merged } = await slow.pulls.mergePull(mergeRequest(repo, pull.issue?.index ?? 0));
      expect(merged).toMatchObject({ hasMerged: true });
    } finally {
      await slow.stop();
    }
  });
});

describe('branch protection', () => {
  async function approve(repoId: number, index: number, reviewerId: number, commitId: string, extra = ''): Promise<void> {
    await h.sql.query(
      `INSERT INTO reviews (repo_id, issue_id, reviewer_id, type, commit_id, official, dismissed)
       SELECT $1, id, $3, 1, $4, true, ${extra === 'dismissed' ? 'true' : 'false'} FROM issues WHERE repo_id = $1 AND index = $2`,
      [repoId, index, reviewerId, commitId],
    );
  }

  it('requires approvals, which a repository admin may override with force_merge unless the rule blocks it', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', requiredApprovals: 1, blockAdminMergeOverride: true }));
    await approve(repo.id, index, 20, pull.headCommitId, 'dismissed');
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.approvals);
    await expectRefused(pulls.mergePull(mergeRequest(repo, index, { forceMerge: true }, ADMIN, 'admin')), Refusal.approvals);
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', requiredApprovals: 1 }));
    await expectRefused(pulls.mergePull(mergeRequest(repo, index, { forceMerge: true })), Refusal.approvals); // a writer, not an admin
    const { pull: merged } = await pulls.mergePull(mergeRequest(repo, index, { forceMerge: true }, ADMIN, 'admin'));
    expect(merged?.hasMerged).toBe(true);
    // Only a dismissed approval: not "approved" for the [repository.signing] MERGES rule.
    expect(fake.merges.at(-1)?.approved).toBe(false);

    const second = await openPull(repo, 'Second', 'feature');
    await approve(repo.id, second.issue?.index ?? 0, 20, second.headCommitId);
    expect((await pulls.mergePull(mergeRequest(repo, second.issue?.index ?? 0))).pull?.hasMerged).toBe(true);
    expect(fake.merges.at(-1)?.approved).toBe(true);
  });

  it('requires the status checks the rule names on the head commit', async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', enableStatusCheck: true, statusCheckContexts: ['ci/*'] }));
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.statusChecks); // no status yet: pending
    fake.statuses = [{ context: 'ci/build', state: 'failure' }];
    fake.combinedState = 'failure';
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.statusChecks);
    fake.statuses = [
      { context: 'ci/build', state: 'success' },
      { context: 'lint', state: 'failure' },
    ];
    expect((await pulls.mergePull(mergeRequest(repo, index))).pull?.hasMerged).toBe(true);
  });

  it('blocks changed protected files and outdated heads when the rule says so', async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    fake.changedFiles = ['src/a.ts', 'package-lock.json'];
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', protectedFilePatterns: '*.json' }));
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.protectedFiles);
    // The head is behind its base: CheckMerge answers a merge base other than the base's tip.
    fake.behind = true;
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', blockOnOutdatedBranch: true }));
    await expectRefused(pulls.mergePull(mergeRequest(repo, index)), Refusal.outdated);
  });
});

describe('manual merges', () => {
  it('are refused unless allowed, need a full commit id contained in the base, and mark the pull request manually merged', async () => {
    const closedRepo = newRepo();
    const refusedIndex = (await openPull(closedRepo)).issue?.index ?? 0;
    await expectRefused(
      pulls.mergePull(mergeRequest(closedRepo, refusedIndex, { style: 'manually-merged', mergeCommitId: SHA(5) })),
      'manually-merged is not allowed an allowed merge style for this repository',
    );

    const repo = newRepo({ allowManualMerge: true });
    const index = (await openPull(repo, 'WIP: manual')).issue?.index ?? 0;
    for (const commit of ['abc123', SHA(6)]) {
      const error = await failure(pulls.mergePull(mergeRequest(repo, index, { style: 'manually-merged', mergeCommitId: commit })));
      expect({ code: error.code, message: error.message }).toEqual({ code: Code.ABORTED, message: 'Wrong commit ID' });
    }
    fake.baseCommits.add(SHA(6));
    const seq = await h.lastSeq();
    const { pull } = await pulls.mergePull(mergeRequest(repo, index, { style: 'manually-merged', mergeCommitId: SHA(6) }));
    expect(pull).toMatchObject({ hasMerged: true, status: 'manually_merged', mergedCommitId: SHA(6), mergerId: ALICE, issue: { isClosed: true } });
    expect(fake.merges).toHaveLength(0);
    const merged = (await h.outbox(seq)).find((event) => event.subject === 'cairn.pull_request.merged');
    expect(merged && decoded(PullRequestEvent, merged).mergeStyle).toBe('manually-merged');
  });
});

describe('deleting the head branch', () => {
  it('deletes a same-repository head branch after merging, but not a protected one or one another pull request uses', async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    await pulls.mergePull(mergeRequest(repo, index, { deleteBranchAfterMerge: true }));
    expect(fake.deletedBranches).toEqual([`${repo.id}:feature`]);

    fake.setBranch(repo.id, 'kept', SHA(90));
    const protectedIndex = (await openPull(repo, 'Kept', 'kept')).issue?.index ?? 0;
    fake.protections.set('kept', BranchProtection.fromPartial({ ruleName: 'kept' }));
    await pulls.mergePull(mergeRequest(repo, protectedIndex, { deleteBranchAfterMerge: true }));
    expect(fake.deletedBranches).toEqual([`${repo.id}:feature`]);

    fake.setBranch(repo.id, 'shared', SHA(91));
    fake.setBranch(repo.id, 'dev', SHA(92));
    const sharedIndex = (await openPull(repo, 'Shared', 'shared')).issue?.index ?? 0;
    await pulls.createPull(CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'shared', baseBranch: 'dev', title: 'Shared too' }));
    await pulls.mergePull(mergeRequest(repo, sharedIndex, { deleteBranchAfterMerge: true }));
    expect(fake.deletedBranches).toEqual([`${repo.id}:feature`]);
  });
});

describe('merger signature', () => {
  it("falls back to the account's name and no-reply address when the gateway sends none", async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    fixture.accounts.users.set(ALICE, User.fromPartial({ id: ALICE, login: 'Alice', fullName: '', keepEmailPrivate: true, email: 'a@x' }));
    await pulls.mergePull(mergeRequest(repo, index, { mergerName: '', mergerEmail: '' }));
    expect(fake.merges[0]).toMatchObject({ author: { name: 'Alice', email: 'alice@noreply.localhost' }, push: { pusherName: 'Alice' } });
  });
});

describe('fast-forward-only', () => {
  it("answers a base that is not the head's ancestor 409 (Gitea's diverging fast-forward-only error)", async () => {
    const repo = newRepo();
    const index = (await openPull(repo)).issue?.index ?? 0;
    fake.mergeError = CairnError.precondition('the base branch is not an ancestor of the head', { reason: 'not_fast_forward' });
    const error = await failure(pulls.mergePull(mergeRequest(repo, index, { style: 'fast-forward-only' })));
    expect({ code: error.code, message: error.message, reason: error.reason }).toEqual({
      code: Code.ABORTED,
      message: 'Not possible to fast-forward, aborting.',
      reason: 'not_fast_forward',
    });
    expect((await pullRow(repo.id, index)).has_merged).toBe(false);
  });
});

describe('squash author', () => {
  const CAROL = 14;

  it("is the poster, as one of the pull request's commits names them, with Gitea's co-author trailers", async () => {
    const repo = newRepo();
    const index = (await openPull(repo, 'Squash me')).issue?.index ?? 0;
    fixture.accounts.users.set(BOB, User.fromPartial({ id: BOB, login: 'bob', fullName: 'Bob Builder', email: 'bob@example.com' }));
    fixture.accounts.users.set(CAROL, User.fromPartial({ id: CAROL, login: 'carol', email: 'carol@example.com' }));
    fake.pullCommits = [
      Commit.fromPartial({ sha: SHA(61), author: { name: 'Carol', email: 'carol@example.com' } }),
      Commit.fromPartial({ sha: SHA(62), author: { name: 'Bobby', email: 'BOB@example.com' } }),
      Commit.fromPartial({ sha: SHA(63), author: { name: 'Bob at home', email: 'bob@example.com' } }),
    ];
    await pulls.mergePull(mergeRequest(repo, index, { style: 'squash', message: 'details' }));
    expect(fake.merges[0]).toMatchObject({
      style: 'squash',
      author: { name: 'Bobby', email: 'BOB@example.com' },
      committer: { name: 'Alice', email: 'alice@example.com' },
      message: `Squash me (#${index})\n\ndetails\nCo-authored-by: Bobby <BOB@example.com>\nCo-committed-by: Bobby <BOB@example.com>\n`,
    });
  });

  it("falls back to the poster's git identity, and adds no trailers when the poster merges", async () => {
    const repo = newRepo();
    const first = (await openPull(repo)).issue?.index ?? 0;
    fixture.accounts.users.set(BOB, User.fromPartial({ id: BOB, login: 'Bob', fullName: '', email: 'bob@example.com', keepEmailPrivate: true }));
    fake.pullCommits = [Commit.fromPartial({ sha: SHA(64), author: { name: 'Someone', email: 'someone@example.com' } })];
    await pulls.mergePull(mergeRequest(repo, first, { style: 'squash' }));
    expect(fake.merges[0]).toMatchObject({ author: { name: 'Bob', email: 'bob@noreply.localhost' }, committer: { name: 'Alice' } });
    expect(fake.merges[0]?.message).toBe(`Add feature (#${first})\nCo-authored-by: Bob <bob@noreply.localhost>\nCo-committed-by: Bob <bob@noreply.localhost>\n`);

    const second = (await openPull(repo, 'By Bob')).issue?.index ?? 0;
    await pulls.mergePull(mergeRequest(repo, second, { style: 'squash', mergerName: 'Bob', mergerEmail: 'bob@noreply.localhost' }));
    expect(fake.merges[1]).toMatchObject({ author: { name: 'Bob', email: 'bob@noreply.localhost' }, message: `By Bob (#${second})` });
    // Other styles keep the merger as the author.
    const third = (await openPull(repo, 'Merged')).issue?.index ?? 0;
    await pulls.mergePull(mergeRequest(repo, third));
    expect(fake.merges[2]).toMatchObject({ author: { name: 'Alice' }, message: `Merge pull request 'Merged' (#${third}) from feature into main` });
  });
});

describe('checks on pushes', () => {
  const publishPush = (repoId: number, ref: string, newSha: string, pusherId = ALICE) => publishPushed(h.bus, { repoId, pusherId, ref, newSha });

  it('re-checks open pull requests from a pushed head and publishes synchronized and mergeability_changed', async () => {
    const repo = newRepo();
    const pull = await openSettled(repo);
    const index = pull.issue?.index ?? 0;
    const seq = await h.lastSeq();
    fake.setBranch(repo.id, 'feature', SHA(4242));
    fake.mergeStatus = 'conflict';
    fake.conflictedFiles = ['x.txt'];
    await publishPush(repo.id, 'refs/heads/feature', SHA(4242));
    const row = await readUntil(
      () => pullRow(repo.id, index),
      (value) => value.status === 'conflict',
    );
    expect(row).toMatchObject({ head_commit_id: SHA(4242), conflicted_files: ['x.txt'] });
    const subjects = (await h.outbox(seq)).map((event) => event.subject);
    expect(subjects).toEqual(expect.arrayContaining(['cairn.pull_request.synchronized', 'cairn.pull_request.mergeability_changed']));
  });

  it('dismisses approvals of an older head when the rule dismisses stale approvals', async () => {
    const repo = newRepo();
    const pull = await openSettled(repo);
    const index = pull.issue?.index ?? 0;
    await h.sql.query(
      `INSERT INTO reviews (repo_id, issue_id, reviewer_id, type, commit_id, official) SELECT $1, id, 20, 1, $3, true FROM issues WHERE repo_id = $1 AND index = $2`,
      [repo.id, index, pull.headCommitId],
    );
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', dismissStaleApprovals: true }));
    fake.setBranch(repo.id, 'feature', SHA(4343));
    await publishPush(repo.id, 'refs/heads/feature', SHA(4343));
    await readUntil(
      async () => (await h.sql.query('SELECT dismissed FROM reviews WHERE repo_id = $1', [repo.id])).rows[0] as { dismissed: boolean },
      (review) => review.dismissed,
    );
    expect((await pullRow(repo.id, index)).head_commit_id).toBe(SHA(4343));
  });

  it('re-checks a pull request whose base branch was edited', async () => {
    const repo = newRepo();
    const index = (await openSettled(repo)).issue?.index ?? 0;
    fake.setBranch(repo.id, 'dev', SHA(95));
    fake.mergeStatus = 'empty';
    const { pull } = await pulls.editPull(EditPullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, fields: ['base'], baseBranch: 'dev' }));
    expect(pull?.status).toBe('checking');
    const row = await readUntil(
      () => pullRow(repo.id, index),
      (value) => value.status === 'empty',
    );
    expect(row.base_branch).toBe('dev');
  });

  it('records "error" when git-storage cannot answer the check', async () => {
    const repo = newRepo();
    fake.mergeStatus = 'bogus';
    expect((await openPull(repo)).status).toBe('error');
  });

  it('re-checks pull requests into a pushed base and ignores tags', async () => {
    const repo = newRepo();
    const index = (await openSettled(repo)).issue?.index ?? 0;
    fake.mergeStatus = 'empty';
    await publishPush(repo.id, 'refs/tags/v1', SHA(1));
    await publishPush(repo.id, 'refs/heads/main', SHA(2));
    const row = await readUntil(
      () => pullRow(repo.id, index),
      (value) => value.status === 'empty',
    );
    expect(row.has_merged).toBe(false);
  });

  it('marks a pull request manually merged when the base now contains its head and the repository detects that', async () => {
    const repo = newRepo({ autodetectManualMerge: true });
    const index = (await openSettled(repo)).issue?.index ?? 0;
    const plain = newRepo();
    const plainIndex = (await openPull(plain)).issue?.index ?? 0;
    fake.mergeStatus = 'ancestor';
    // Without a merge commit: the head itself, by the repository's owner (its author is nobody known).
    await publishPush(repo.id, 'refs/heads/main', SHA(3), BOB);
    await publishPush(plain.id, 'refs/heads/main', SHA(3));
    const row = await readUntil(
      () => pullRow(repo.id, index),
      (value) => value.has_merged === true,
    );
    expect(row).toMatchObject({ status: 'manually_merged', merge_style: 'manually-merged', merger_id: '100', is_closed: true, merged_commit_id: SHA(repo.id * 10 + 1) });
    const plainRow = await readUntil(
      () => pullRow(plain.id, plainIndex),
      (value) => value.status === 'ancestor',
    );
    expect(plainRow.has_merged).toBe(false);
  });

  it("records a detected manual merge's merge commit, its author as the merger and its author time", async () => {
    const repo = newRepo({ autodetectManualMerge: true });
    const index = (await openSettled(repo)).issue?.index ?? 0;
    fixture.accounts.users.set(BOB, User.fromPartial({ id: BOB, login: 'bob', email: 'bob@example.com' }));
    const mergedAt = new Date('2024-03-04T05:06:07Z');
    fake.mergeCommit = Commit.fromPartial({ sha: SHA(888), author: { name: 'Bob', email: 'BOB@example.com', when: mergedAt, timezone: '+0100' } });
    fake.mergeStatus = 'ancestor';
    const seq = await h.lastSeq();
    try {
      await publishPush(repo.id, 'refs/heads/main', SHA(888), ALICE);
      const row = await readUntil(
        () => pullRow(repo.id, index),
        (value) => value.has_merged === true,
      );
      expect(row).toMatchObject({ status: 'manually_merged', merger_id: String(BOB), merged_commit_id: SHA(888), merged_at: mergedAt });
      const merged = (await h.outbox(seq)).find((event) => event.subject === 'cairn.pull_request.merged');
      expect(merged && decoded(PullRequestEvent, merged)).toMatchObject({ meta: { actorId: BOB }, pull: { mergerId: BOB, mergedCommitId: SHA(888), mergedAt } });
    } finally {
      fake.mergeCommit = undefined;
    }
  });
});
