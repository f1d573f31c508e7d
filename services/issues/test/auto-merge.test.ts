/**
 * Scheduled auto-merge over gRPC against the fake git-storage/repos/accounts server: MergePull with
 * merge_when_checks_succeed (Gitea's MergeCheckTypeAuto checks, one schedule per pull request, a first try at once),
 * CancelAutoMerge's rules, and the consumers that merge as the scheduler when a commit status or an approval arrives.
 */
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import { CreatePullRequest, EditPullRequest, MergePullRequest, type PullServiceService, type PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { CommitStatusCreated } from '@cairn/proto/cairn/repos/v1/events';
import { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, type RpcClient } from '@cairn/rpc';
import { Refusal } from '../src/domain/merge-rules';
import { ALL_RIGHTS, type FakeGitRepos, NO_RIGHTS } from './fake-git-repos';
import { type Mode, readUntil, type ServiceHarness } from './harness';
import { configuredRepo, createPull, failure, type FakeRepo as Repo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const ALICE = 11; // writer, the scheduler
const BOB = 12; // the pull request's poster
const CAROL = 14; // another writer

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;
let pulls: RpcClient<typeof PullServiceService>;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake, pulls } = fixture);
  fixture.accounts.users.set(ALICE, User.fromPartial({ id: ALICE, login: 'alice', fullName: 'Alice A', email: 'alice@example.com' }));
});

afterAll(() => fixture.stop());

beforeEach(() => {
  fake.reset();
  // Required status checks on main: context "ci".
  fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', enableStatusCheck: true, statusCheckContexts: ['ci'] }));
});

const newRepo = (): Repo => configuredRepo(fake, { objectFormatName: 'sha1', allowMergeCommits: true, allowSquashMerge: true });

const openPull = (repo: Repo, title = 'Add feature'): Promise<PullRequest> =>
  createPull(fixture, CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'feature', baseBranch: 'main', title }));

function schedule(repo: Repo, index: number, partial: Partial<MergePullRequest> = {}, userId = ALICE, mode: Mode = 'write'): MergePullRequest {
  return MergePullRequest.fromPartial({ scope: repo.scopeOf(userId, mode), index, style: 'merge', mergeWhenChecksSucceed: true, ...partial });
}

async function scheduledRow(issueId: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await h.sql.query('SELECT doer_id::int AS doer_id, merge_style, message, delete_branch_after_merge FROM pull_auto_merges WHERE issue_id = $1', [issueId]);
  return rows[0] as Record<string, unknown> | undefined;
}

async function hasMerged(repo: Repo, index: number): Promise<boolean> {
  const { pull } = await pulls.getPull({ scope: repo.scopeOf(ALICE), index });
  return pull?.hasMerged === true;
}

/** Publishes a commit status and waits until `issues-automerge` has handled it. */
async function statusReported(repo: Repo, sha: string, state: string, context = 'ci'): Promise<void> {
  const eventId = uuidv7();
  const event = CommitStatusCreated.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: repo.id }, repoId: repo.id, sha, context, state, index: 1 });
  await h.bus.publish('cairn.commit_status.created', eventId, encodeEvent(CommitStatusCreated, event));
  await handled('issues-automerge', eventId);
}

async function handled(consumer: string, eventId: string): Promise<void> {
  await readUntil(() => h.sql.query('SELECT 1 FROM cairn_processed_events WHERE consumer = $1 AND event_id = $2', [consumer, eventId]), (found) => found.rowCount === 1);
}

describe('scheduling', () => {
  it('records the schedule when the required status is pending, and answers scheduled without merging', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    const answer = await pulls.mergePull(schedule(repo, index, { deleteBranchAfterMerge: true }));
    expect(answer.scheduled).toBe(true);
    expect(answer.pull?.hasMerged).toBe(false);
    expect(fake.merges).toHaveLength(0);
    expect(await scheduledRow(pull.issue?.id ?? 0)).toEqual({
      doer_id: ALICE,
      merge_style: 'merge',
      message: `Merge pull request 'Add feature' (#${index}) from feature into main`,
      delete_branch_after_merge: true,
    });
  });

  it('refuses a second schedule with 409 and Gitea’s message', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    await pulls.mergePull(schedule(repo, index));
    const error = await failure(pulls.mergePull(schedule(repo, index, {}, CAROL)));
    expect({ code: error.code, message: error.message }).toEqual({
      code: Code.ALREADY_EXISTS,
      message: `pull request is already scheduled to auto merge when checks succeed [pull_id: ${pull.issue?.id}]`,
    });
    expect((await scheduledRow(pull.issue?.id ?? 0))?.doer_id).toBe(ALICE);
  });

  it('still refuses what MergeCheckTypeAuto checks: permission, work in progress, mergeability, closed', async () => {
    const repo = newRepo();
    const wip = await openPull(repo, 'WIP: not yet');
    const wipError = await failure(pulls.mergePull(schedule(repo, wip.issue?.index ?? 0)));
    expect(wipError.message).toBe(Refusal.workInProgress);

    const repo2 = newRepo();
    const pull = await openPull(repo2);
    const index = pull.issue?.index ?? 0;
    fake.otherRights = NO_RIGHTS;
    expect((await failure(pulls.mergePull(schedule(repo2, index)))).message).toBe(Refusal.notAllowed);
    fake.otherRights = ALL_RIGHTS;
    await h.sql.query(`UPDATE pull_requests SET status = 'conflict' WHERE issue_id = $1`, [pull.issue?.id]);
    expect((await failure(pulls.mergePull(schedule(repo2, index)))).message).toBe(Refusal.notMergeable);
    await h.sql.query(`UPDATE pull_requests SET status = 'mergeable' WHERE issue_id = $1`, [pull.issue?.id]);
    await pulls.editPull(EditPullRequest.fromPartial({ scope: repo2.scopeOf(ALICE), index, fields: ['state'], state: 'closed' }));
    expect((await failure(pulls.mergePull(schedule(repo2, index)))).code).toBe(Code.NOT_FOUND);
    expect(await scheduledRow(pull.issue?.id ?? 0)).toBeUndefined();
  });

  it('merges at once when nothing holds it back (no status check on the rule), as the scheduler', async () => {
    fake.protections.clear();
    const repo = newRepo();
    const pull = await openPull(repo);
    const answer = await pulls.mergePull(schedule(repo, pull.issue?.index ?? 0));
    expect(answer.scheduled).toBe(true);
    expect(answer.pull?.hasMerged).toBe(true);
    expect(answer.pull?.mergerId).toBe(ALICE);
    expect(fake.merges[0]).toMatchObject({ author: { name: 'Alice A', email: 'alice@example.com' }, expectedHeadCommitId: pull.headCommitId });
    expect(await scheduledRow(pull.issue?.id ?? 0)).toBeUndefined();
  });

  it('drops the schedule when the pull request is closed', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    await pulls.mergePull(schedule(repo, index));
    await pulls.editPull(EditPullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, fields: ['state'], state: 'closed' }));
    expect(await scheduledRow(pull.issue?.id ?? 0)).toBeUndefined();
  });
});

describe('cancelling', () => {
  it('is 404 without a schedule, 403 for other writers, allowed to the scheduler and to repository admins', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    expect((await failure(pulls.cancelAutoMerge({ scope: repo.scopeOf(ALICE), index }))).code).toBe(Code.NOT_FOUND);
    await pulls.mergePull(schedule(repo, index));
    const denied = await failure(pulls.cancelAutoMerge({ scope: repo.scopeOf(CAROL), index }));
    expect({ code: denied.code, message: denied.message }).toEqual({
      code: Code.PERMISSION_DENIED,
      message: 'user has no permission to cancel the scheduled auto merge',
    });
    await pulls.cancelAutoMerge({ scope: repo.scopeOf(CAROL, 'admin'), index });
    expect(await scheduledRow(pull.issue?.id ?? 0)).toBeUndefined();
    await pulls.mergePull(schedule(repo, index));
    await pulls.cancelAutoMerge({ scope: repo.scopeOf(ALICE), index });
    expect((await failure(pulls.cancelAutoMerge({ scope: repo.scopeOf(ALICE), index }))).code).toBe(Code.NOT_FOUND);
  });
});

describe('the auto-merge consumers', () => {
  it('merges when the required status turns success, and not before', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    await pulls.mergePull(schedule(repo, index, { title: 'Ship it', message: 'all green' }));

    fake.statuses = [{ context: 'ci', state: 'pending' }];
    await statusReported(repo, pull.headCommitId, 'pending');
    fake.statuses = [{ context: 'lint', state: 'success' }, { context: 'ci', state: 'pending' }];
    await statusReported(repo, pull.headCommitId, 'success', 'lint');
    expect(await hasMerged(repo, index)).toBe(false);
    expect(fake.merges).toHaveLength(0);

    // A success for another commit merges nothing either.
    fake.statuses = [{ context: 'ci', state: 'success' }];
    await statusReported(repo, SHA(1), 'success');
    expect(await hasMerged(repo, index)).toBe(false);

    await statusReported(repo, pull.headCommitId, 'success');
    expect(await hasMerged(repo, index)).toBe(true);
    expect(fake.merges).toHaveLength(1);
    expect(fake.merges[0]).toMatchObject({ message: 'Ship it\n\nall green', push: { pusherId: ALICE }, expectedHeadCommitId: pull.headCommitId });
    expect(await scheduledRow(pull.issue?.id ?? 0)).toBeUndefined();
  });

  it('tries again on an approval of the head', async () => {
    const repo = newRepo();
    const pull = await openPull(repo);
    const index = pull.issue?.index ?? 0;
    await pulls.mergePull(schedule(repo, index));
    expect(await hasMerged(repo, index)).toBe(false);
    // The status is there already (its event was missed); the approval's event tries the merge.
    fake.statuses = [{ context: 'ci', state: 'success' }];
    const eventId = uuidv7();
    const event = PullReviewEvent.fromPartial({
      meta: { eventId, occurredAt: new Date(), actorId: CAROL, repoId: repo.id },
      pull: { issue: { id: pull.issue?.id, repoId: repo.id, index } },
      review: { reviewerId: CAROL, state: 'APPROVED', commitId: pull.headCommitId },
    });
    await h.bus.publish('cairn.pull_review.submitted', eventId, encodeEvent(PullReviewEvent, event));
    await handled('issues-automerge-reviews', eventId);
    expect(await hasMerged(repo, index)).toBe(true);
  });
});
