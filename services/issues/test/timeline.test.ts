/**
 * The timeline on a real database (store/timeline.ts, rpc/timeline-service.ts): the entries each change writes
 * (opening, edits of title, deadline, assignees, milestone and state, labels, tracked time and stopwatches, a pull
 * request's base, review requests, pushes, scheduled merges, merging and deleting the head branch), their order,
 * `since`/`before` and paging, pending reviews shown to their reviewer only, and that no entry counts as a comment.
 */
import { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import { CreateIssueRequest, EditIssueRequest, type TimelineEntry } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CreatePullRequest, EditPullRequest, MergePullRequest, type PullServiceService, type ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { BranchProtection } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, type RpcClient } from '@cairn/rpc';
import type { FakeGitRepos } from './fake-git-repos';
import { publishPush as publishPushed, readUntil, scope, type ServiceHarness } from './harness';
import { configuredRepo, type FakeRepo as Repo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const ALICE = 11; // writer
const BOB = 12; // poster
const CAROL = 13; // reviewer

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;
let pulls: RpcClient<typeof PullServiceService>;
let reviews: RpcClient<typeof ReviewServiceService>;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake, pulls, reviews } = fixture);
});

afterAll(() => fixture.stop());

beforeEach(() => fake.reset());

/** A repository with branches main, feature and dev, merge commits allowed. */
function newRepo(): Repo {
  const repo = configuredRepo(fake, { objectFormatName: 'sha1', allowMergeCommits: true });
  fake.setBranch(repo.id, 'dev', SHA(repo.id * 10 + 2));
  return repo;
}

async function timeline(repo: Repo, index: number, viewer = ALICE, more: { since?: Date; before?: Date; page?: { page: number; limit: number } } = {}) {
  return h.comments.listTimeline({ scope: repo.scopeOf(viewer), index, ...more });
}

async function entries(repo: Repo, index: number, viewer = ALICE): Promise<TimelineEntry[]> {
  return (await timeline(repo, index, viewer)).entries;
}

const types = (list: readonly TimelineEntry[]): number[] => list.map((entry) => entry.type);

async function numComments(repo: Repo, index: number): Promise<number> {
  const { rows } = await h.sql.query<{ n: number }>('SELECT num_comments AS n FROM issues WHERE repo_id = $1 AND index = $2', [repo.id, index]);
  return rows[0].n;
}

async function createIssue(repo: Repo, fields: { labelIds?: number[]; milestoneId?: number; assigneeIds?: number[] } = {}): Promise<number> {
  const { issue } = await h.issues.createIssue(CreateIssueRequest.fromPartial({ scope: repo.scopeOf(ALICE), title: 'first', ...fields }));
  return issue?.index ?? 0;
}

async function createLabel(repo: Repo, name: string): Promise<number> {
  const { label } = await h.labels.createLabel({
    owner: { scope: repo.scopeOf(ALICE), orgId: 0, orgWriter: false },
    name,
    color: '#00aabb',
    description: '',
    exclusive: false,
    isArchived: false,
  });
  return label?.id ?? 0;
}

async function createMilestone(repo: Repo, title: string): Promise<number> {
  const { milestone } = await h.milestones.createMilestone({ scope: repo.scopeOf(ALICE), title, description: '', state: '' });
  return milestone?.id ?? 0;
}

const edit = (repo: Repo, index: number, fields: string[], values: Partial<EditIssueRequest>) =>
  h.issues.editIssue(EditIssueRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, fields, ...values }));

describe('issue changes', () => {
  test('opening and editing write Gitea’s entries in order; none is a comment', async () => {
    const repo = newRepo();
    const bug = await createLabel(repo, 'bug');
    const v1 = await createMilestone(repo, 'v1');
    const v2 = await createMilestone(repo, 'v2');
    const index = await createIssue(repo, { labelIds: [bug], milestoneId: v1, assigneeIds: [BOB] });
    expect(await entries(repo, index)).toMatchObject([
      { type: 7, body: '1', label: { id: bug, name: 'bug' }, posterId: ALICE },
      { type: 8, milestone: { id: v1 } },
      { type: 9, assigneeId: BOB, removedAssignee: false },
    ]);

    await edit(repo, index, ['title', 'deadline', 'assignees', 'milestone', 'state'], {
      title: 'second',
      deadline: new Date('2030-01-02T10:00:00Z'),
      assigneeIds: [CAROL],
      milestoneId: v2,
      state: 'closed',
    });
    await edit(repo, index, ['deadline', 'state'], { deadline: new Date('2030-02-03T00:00:00Z'), state: 'open' });
    await edit(repo, index, ['deadline', 'milestone'], { milestoneId: 0 });
    const list = await entries(repo, index);
    expect(types(list)).toEqual([7, 8, 9, 10, 16, 9, 9, 8, 2, 17, 1, 18, 8]);
    expect(list[3]).toMatchObject({ oldTitle: 'first', newTitle: 'second' });
    expect(list[4]).toMatchObject({ body: '2030-01-02' });
    expect(list[5]).toMatchObject({ assigneeId: BOB, removedAssignee: true });
    expect(list[6]).toMatchObject({ assigneeId: CAROL, removedAssignee: false });
    expect(list[7]).toMatchObject({ oldMilestone: { id: v1 }, milestone: { id: v2 } });
    expect(list[9]).toMatchObject({ body: '2030-02-03|2030-01-02' });
    expect(list[11]).toMatchObject({ body: '2030-02-03' });
    expect(list[12].oldMilestone).toMatchObject({ id: v2 });
    expect(list[12].milestone).toBeUndefined();

    expect(await numComments(repo, index)).toBe(0);
    const { comments } = await h.comments.listIssueComments({ scope: repo.scopeOf(ALICE), index });
    expect(comments).toEqual([]);
    expect((await h.comments.listRepoComments({ scope: repo.scopeOf(ALICE) })).total).toBe(0);

    await h.comments.createComment({ scope: repo.scopeOf(BOB, 'read'), index, body: 'hello' });
    expect(await numComments(repo, index)).toBe(1);
    const after = await entries(repo, index);
    expect(after[after.length - 1]).toMatchObject({ type: 0, body: 'hello', posterId: BOB });
  });

  test('labels added and removed; a deleted label leaves its entry without the label', async () => {
    const repo = newRepo();
    const index = await createIssue(repo);
    const [a, b] = [await createLabel(repo, 'a'), await createLabel(repo, 'b')];
    await h.labels.addIssueLabels({ scope: repo.scopeOf(ALICE), index, labelIds: [a, b], names: [] });
    await h.labels.replaceIssueLabels({ scope: repo.scopeOf(ALICE), index, labelIds: [b], names: [] });
    await h.labels.deleteLabel({ owner: { scope: repo.scopeOf(ALICE), orgId: 0, orgWriter: false }, id: a });
    const list = await entries(repo, index);
    expect(list.map((entry) => [entry.type, entry.body])).toEqual([
      [7, '1'],
      [7, '1'],
      [7, ''],
    ]);
    expect(list[0].label).toBeUndefined();
    expect(list[1].label).toMatchObject({ id: b });
  });

  test('tracked time and stopwatches', async () => {
    const repo = newRepo();
    const index = await createIssue(repo);
    const { time } = await h.times.addTrackedTime({ scope: repo.scopeOf(ALICE), issueIndex: index, time: 3720, userId: 0 });
    await h.times.deleteTrackedTime({ scope: repo.scopeOf(ALICE), issueIndex: index, id: time?.id ?? 0 });
    await h.times.startStopwatch({ scope: repo.scopeOf(ALICE), issueIndex: index });
    await h.times.cancelStopwatch({ scope: repo.scopeOf(ALICE), issueIndex: index });
    await h.times.startStopwatch({ scope: repo.scopeOf(ALICE), issueIndex: index });
    await h.sql.query("UPDATE stopwatches SET created = now() - interval '90 seconds' WHERE issue_id = (SELECT id FROM issues WHERE repo_id = $1 AND index = $2)", [
      repo.id,
      index,
    ]);
    await h.times.stopStopwatch({ scope: repo.scopeOf(ALICE), issueIndex: index });
    const list = await entries(repo, index);
    expect(types(list)).toEqual([14, 26, 12, 15, 12, 13]);
    expect(list[0]).toMatchObject({ body: '|3720', trackedTime: { id: time?.id, time: 3720 } });
    expect(list[1]).toMatchObject({ body: '|3720' });
    expect(list[1].trackedTime).toBeUndefined();
    expect(Number(list[5].body.slice(1))).toBeGreaterThanOrEqual(85);
    expect(list[5].trackedTime?.time).toBe(Number(list[5].body.slice(1)));
    expect(await numComments(repo, index)).toBe(0);
  });

  test('since, before and pages; an unreadable unit is NOT_FOUND', async () => {
    const repo = newRepo();
    const index = await createIssue(repo);
    for (const title of ['t1', 't2', 't3']) await edit(repo, index, ['title'], { title });
    await h.sql.query("UPDATE comments SET updated = '2020-01-01T00:00:00Z', created = '2020-01-01T00:00:00Z' WHERE id = (SELECT min(id) FROM comments c WHERE c.repo_id = $1)", [repo.id]);
    const all = await timeline(repo, index);
    expect(all.total).toBe(3);
    expect(all.entries.map((entry) => entry.newTitle)).toEqual(['t1', 't2', 't3']);
    const page = await timeline(repo, index, ALICE, { page: { page: 2, limit: 2 } });
    expect({ total: page.total, titles: page.entries.map((entry) => entry.newTitle) }).toEqual({ total: 3, titles: ['t3'] });
    expect((await timeline(repo, index, ALICE, { since: new Date('2021-01-01T00:00:00Z') })).entries.map((entry) => entry.newTitle)).toEqual(['t2', 't3']);
    expect((await timeline(repo, index, ALICE, { before: new Date('2020-01-01T00:00:00Z') })).entries.map((entry) => entry.newTitle)).toEqual(['t1']);
    await expect(h.comments.listTimeline({ scope: scope({ userId: BOB, repoId: repo.id, units: ['repo.code', 'repo.pulls'] }), index })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
    });
  });
});

describe('pull requests', () => {
  async function openPull(repo: Repo): Promise<number> {
    const { pull } = await pulls.createPull(CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'feature', baseBranch: 'main', title: 'Add', body: '' }));
    return pull?.issue?.index ?? 0;
  }

  const publishPush = (repoId: number, newSha: string) => publishPushed(h.bus, { repoId, pusherId: BOB, ref: 'refs/heads/feature', newSha });

  test('base, review requests, pushes, merge and branch deletion', async () => {
    const repo = newRepo();
    const index = await openPull(repo);
    await pulls.editPull(EditPullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, fields: ['base'], baseBranch: 'dev' }));
    await pulls.editPull(EditPullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, fields: ['base'], baseBranch: 'main' }));
    await reviews.requestReviewers({ scope: repo.scopeOf(ALICE), index, reviewerIds: [CAROL], teamNames: [] });
    await reviews.cancelReviewRequests({ scope: repo.scopeOf(ALICE), index, reviewerIds: [CAROL], teamNames: [] });

    // A push with new commits (the old head is in the new one's history), then a force push.
    const oldHead = SHA(repo.id * 10 + 1);
    fake.baseCommits.add(oldHead);
    fake.pullCommits = [Commit.fromPartial({ sha: SHA(7002) }), Commit.fromPartial({ sha: SHA(7001) })];
    fake.setBranch(repo.id, 'feature', SHA(7002));
    await publishPush(repo.id, SHA(7002));
    await readUntil(
      () => entries(repo, index),
      (list) => list.some((entry) => entry.type === 29),
    );
    fake.baseCommits.clear();
    fake.setBranch(repo.id, 'feature', SHA(7003));
    await publishPush(repo.id, SHA(7003));
    await readUntil(
      () => entries(repo, index),
      (list) => list.filter((entry) => entry.type === 29).length === 2,
    );

    await pulls.mergePull(MergePullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, style: 'merge', mergerName: 'Alice', mergerEmail: 'a@example.com', deleteBranchAfterMerge: true }));
    const list = await entries(repo, index);
    expect(types(list)).toEqual([25, 25, 27, 27, 29, 29, 28, 11]);
    expect(list[0]).toMatchObject({ oldRef: 'main', newRef: 'dev', posterId: ALICE });
    expect(list[2]).toMatchObject({ assigneeId: CAROL, removedAssignee: false });
    expect(list[3]).toMatchObject({ assigneeId: CAROL, removedAssignee: true });
    expect(JSON.parse(list[4].body)).toEqual({ is_force_push: false, commit_ids: [SHA(7001), SHA(7002)] });
    // Whoever caused the check that saw the new head: the pusher, or the base edits' checks still running.
    expect([BOB, ALICE]).toContain(list[4].posterId);
    expect(JSON.parse(list[5].body)).toEqual({ is_force_push: true, commit_ids: [SHA(7002), SHA(7003)] });
    expect(list[6]).toMatchObject({ posterId: ALICE });
    expect(list[7]).toMatchObject({ oldRef: 'feature' });
    expect(await numComments(repo, index)).toBe(0);
  });

  test('scheduling and cancelling a merge when checks succeed', async () => {
    const repo = newRepo();
    const index = await openPull(repo);
    fake.protections.set('main', BranchProtection.fromPartial({ ruleName: 'main', enableStatusCheck: true, statusCheckContexts: ['ci'] }));
    await pulls.mergePull(MergePullRequest.fromPartial({ scope: repo.scopeOf(ALICE), index, style: 'merge', mergeWhenChecksSucceed: true }));
    await pulls.cancelAutoMerge({ scope: repo.scopeOf(ALICE), index });
    expect(types(await entries(repo, index))).toEqual([34, 35]);
  });

  test('a pending review’s entries show to its reviewer only; code comments never', async () => {
    const repo = newRepo();
    const index = await openPull(repo);
    const { rows } = await h.sql.query<{ issue_id: string; review_id: string }>(
      `WITH i AS (SELECT id FROM issues WHERE repo_id = $1 AND index = $2),
            r AS (INSERT INTO reviews (repo_id, issue_id, reviewer_id, type) SELECT $1, id, $3, 0 FROM i RETURNING id, issue_id)
       SELECT issue_id, id AS review_id FROM r`,
      [repo.id, index, CAROL],
    );
    const { issue_id: issueId, review_id: reviewId } = rows[0];
    await h.sql.query(
      `INSERT INTO comments (repo_id, issue_id, type, poster_id, body, review_id) VALUES ($1, $2, 22, $3, 'draft', $4), ($1, $2, 21, $3, 'line', $4)`,
      [repo.id, issueId, CAROL, reviewId],
    );
    expect(types(await entries(repo, index, CAROL))).toEqual([22]);
    expect(await entries(repo, index, ALICE)).toEqual([]);
    expect((await timeline(repo, index, ALICE)).total).toBe(0);
  });
});
