/** Each payload builder's top-level keys against Gitea's (gitea-facts §6.2, modules/structs/hook.go), with fake clients. */
import { silentLogger } from '@cairn/log';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Comment, Issue, Label } from '@cairn/proto/cairn/issues/v1/issues_service';
import { PullRequest, Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { CommitStatusCreated, ReleasePublished, RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import { Release } from '@cairn/proto/cairn/repos/v1/releases_service';
import { encodeEvent, type EventEncoder } from '@cairn/bus';
import { addHistory, addRepository, addUser, type FakeWorld, fakeClients, fakeWorld } from '../../test/fake-clients';
import { type PayloadServices, type PlannedPayload, planEvent } from './index';

const ROOT = 'http://cairn.test/';
const EVENT_ID = '0190f5a0-0000-7000-8000-000000000001';
const ZERO = '0'.repeat(40);
const sha = (n: number) => n.toString(16).padStart(40, 'a');

function setUp(): { world: FakeWorld; services: PayloadServices } {
  const world = fakeWorld();
  addUser(world, 10, 'alice');
  addUser(world, 30, 'carol');
  addRepository(world, { id: 1, ownerId: 10, ownerName: 'alice', name: 'tools' });
  addRepository(world, { id: 2, ownerId: 10, ownerName: 'alice', name: 'tools-fork', ownerType: 1 });
  addHistory(world, [sha(1), sha(2), sha(3), sha(4), sha(5), sha(6), sha(7), sha(8)]);
  const services: PayloadServices = {
    config: { server: { rootUrl: ROOT }, service: { noReplyAddress: 'noreply.cairn.test' } },
    logger: silentLogger(),
    clients: fakeClients(world),
  };
  return { world, services };
}

const meta = { eventId: EVENT_ID, occurredAt: new Date('2026-11-28T12:00:00Z'), actorId: 30, repoId: 1 };

function plansOf<T>(services: PayloadServices, subject: string, type: EventEncoder<T>, event: T): PlannedPayload[] {
  const read = planEvent(services, subject, encodeEvent(type, event));
  if (read === undefined || 'problem' in read) throw new Error(`no plans for ${subject}`);
  return read.plans.flatMap((plan) => plan.payloads);
}

async function built(plan: PlannedPayload | undefined): Promise<Record<string, unknown>> {
  const result = await plan?.build();
  if (result === undefined) throw new Error('nothing built');
  return result.payload as Record<string, unknown>;
}

describe('push, create and delete', () => {
  it('an updated branch: push with the commits it added (at most 5), total_commits, compare_url, head_commit', async () => {
    const { services } = setUp();
    const event = GitPushed.fromPartial({ meta, pusherId: 30, repoId: 1, repoOwnerId: 10, refUpdates: [{ ref: 'refs/heads/main', oldSha: sha(1), newSha: sha(8) }] });
    const plans = plansOf(services, 'cairn.git.pushed', GitPushed, event);
    expect(plans.map((plan) => [plan.eventType, plan.branch])).toEqual([['push', 'main']]);
    const payload = await built(plans[0]);
    expect(Object.keys(payload)).toEqual(['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender']);
    expect(payload.ref).toBe('refs/heads/main');
    expect(payload.compare_url).toBe(`${ROOT}alice/tools/compare/${sha(1)}...${sha(8)}`);
    expect(payload.total_commits).toBe(7);
    const commits = payload.commits as Array<Record<string, unknown>>;
    expect(commits.map((commit) => commit.id)).toEqual([sha(8), sha(7), sha(6), sha(5), sha(4)]);
    expect(Object.keys(commits[0])).toEqual(['id', 'message', 'url', 'author', 'committer', 'verification', 'timestamp', 'added', 'removed', 'modified']);
    expect(commits[0].modified).toEqual(['file7.txt']);
    // The author's e-mail is alice's: Gitea names her.
    expect((commits[0].author as Record<string, unknown>).username).toBe('alice');
    expect((payload.head_commit as Record<string, unknown>).id).toBe(sha(8));
    expect((payload.pusher as Record<string, unknown>).login).toBe('carol');
    expect((payload.repository as Record<string, unknown>).full_name).toBe('alice/tools');
  });

  it('a new branch: create (short ref) and push; a deleted branch: delete only; a new tag: create and a push without commits', async () => {
    const { services } = setUp();
    const event = GitPushed.fromPartial({
      meta,
      pusherId: 30,
      repoId: 1,
      repoOwnerId: 10,
      refUpdates: [
        { ref: 'refs/heads/feature/x', oldSha: ZERO, newSha: sha(3) },
        { ref: 'refs/heads/old', oldSha: sha(2), newSha: ZERO },
        { ref: 'refs/tags/v1.0', oldSha: ZERO, newSha: sha(4) },
        { ref: 'refs/pull/1/head', oldSha: ZERO, newSha: sha(4) },
      ],
    });
    const plans = plansOf(services, 'cairn.git.pushed', GitPushed, event);
    expect(plans.map((plan) => [plan.eventType, plan.branch, plan.key])).toEqual([
      ['create', 'feature/x', `${EVENT_ID}:refs/heads/feature/x`],
      ['push', 'feature/x', `${EVENT_ID}:refs/heads/feature/x`],
      ['delete', 'old', `${EVENT_ID}:refs/heads/old`],
      ['create', undefined, `${EVENT_ID}:refs/tags/v1.0`],
      ['push', undefined, `${EVENT_ID}:refs/tags/v1.0`],
    ]);
    const create = await built(plans[0]);
    expect(Object.keys(create)).toEqual(['sha', 'ref', 'ref_type', 'repository', 'sender']);
    expect([create.ref, create.ref_type, create.sha]).toEqual(['feature/x', 'branch', sha(3)]);
    const newBranchPush = await plans[1].build();
    expect(newBranchPush?.pushCommits).toBe(3);
    const deleted = await built(plans[2]);
    expect(Object.keys(deleted)).toEqual(['ref', 'ref_type', 'pusher_type', 'repository', 'sender']);
    expect([deleted.ref, deleted.ref_type, deleted.pusher_type]).toEqual(['old', 'branch', 'user']);
    const tagPush = await plans[4].build();
    expect(tagPush?.pushCommits).toBe(0);
    expect((tagPush?.payload as Record<string, unknown>).commits).toEqual([]);
    expect(((tagPush?.payload as Record<string, unknown>).head_commit as Record<string, unknown>).id).toBe(sha(4));
  });
});

describe('issues and comments', () => {
  const issue = Issue.fromPartial({ id: 100, repoId: 1, index: 7, posterId: 10, title: 'Bug', body: 'It breaks', created: new Date(), updated: new Date() });

  it('opened, edited (changes), assigned (one per assignee), labels, milestone', async () => {
    const { services } = setUp();
    const opened = await built(plansOf(services, 'cairn.issue.opened', IssueEvent, IssueEvent.fromPartial({ meta, issue }))[0]);
    expect(Object.keys(opened)).toEqual(['action', 'number', 'issue', 'repository', 'sender', 'commit_id']);
    expect([opened.action, opened.number]).toEqual(['opened', 7]);

    const edited = plansOf(services, 'cairn.issue.edited', IssueEvent, IssueEvent.fromPartial({ meta, issue, changed: ['title'], previousTitle: 'Bgu' }));
    const editedPayload = await built(edited[0]);
    expect(editedPayload.changes).toEqual({ title: { from: 'Bgu' } });

    const assigned = plansOf(services, 'cairn.issue.assigned', IssueEvent, IssueEvent.fromPartial({ meta, issue, addedAssigneeIds: [10, 30], removedAssigneeIds: [20] }));
    expect(assigned.map((plan) => plan.eventType)).toEqual(['issue_assign', 'issue_assign', 'issue_assign']);
    expect(await Promise.all(assigned.map(async (plan) => (await built(plan)).action))).toEqual(['assigned', 'assigned', 'unassigned']);

    const label = Label.fromPartial({ id: 5, repoId: 1, name: 'bug', color: '#ff0000' });
    const labeled = plansOf(services, 'cairn.issue.labeled', IssueEvent, IssueEvent.fromPartial({ meta, issue: { ...issue, labels: [label] }, addedLabels: [label] }));
    const labelPayload = await built(labeled[0]);
    expect([labeled[0].eventType, labelPayload.action]).toEqual(['issue_label', 'label_updated']);
    expect(Object.keys(labelPayload.changes as object)).toEqual(['added_labels', 'removed_labels']);
    const cleared = plansOf(services, 'cairn.issue.labeled', IssueEvent, IssueEvent.fromPartial({ meta, issue, removedLabels: [label] }));
    expect((await built(cleared[0])).action).toBe('label_cleared');

    const demilestoned = plansOf(services, 'cairn.issue.milestoned', IssueEvent, IssueEvent.fromPartial({ meta, issue }));
    expect([demilestoned[0].eventType, (await built(demilestoned[0])).action]).toEqual(['issue_milestone', 'demilestoned']);

    expect(plansOf(services, 'cairn.issue.locked', IssueEvent, IssueEvent.fromPartial({ meta, issue }))).toEqual([]);
  });

  it('a comment: issue_comment on an issue, pull_request_comment with is_pull on a pull request', async () => {
    const { services } = setUp();
    const comment = Comment.fromPartial({ id: 9, repoId: 1, issueId: 100, issueIndex: 7, posterId: 30, body: 'me too', created: new Date(), updated: new Date() });
    const plans = plansOf(services, 'cairn.issue_comment.edited', IssueCommentEvent, IssueCommentEvent.fromPartial({ meta, issue, comment, previousBody: 'me' }));
    expect(plans[0].eventType).toBe('issue_comment');
    const payload = await built(plans[0]);
    expect(Object.keys(payload)).toEqual(['action', 'issue', 'comment', 'changes', 'repository', 'sender', 'is_pull']);
    expect([payload.action, payload.is_pull, payload.changes]).toEqual(['edited', false, { body: { from: 'me' } }]);
    const onPull = plansOf(services, 'cairn.issue_comment.created', IssueCommentEvent, IssueCommentEvent.fromPartial({ meta, issue: { ...issue, isPull: true }, comment }));
    expect(onPull[0].eventType).toBe('pull_request_comment');
    expect((await built(onPull[0])).is_pull).toBe(true);
  });
});

describe('pull requests and reviews', () => {
  const pullIssue = Issue.fromPartial({ id: 101, repoId: 1, index: 8, posterId: 10, title: 'Fix', isPull: true, created: new Date(), updated: new Date() });
  const pull = PullRequest.fromPartial({ issue: pullIssue, headRepoId: 1, baseBranch: 'main', headBranch: 'fix', status: 'mergeable' });

  it('opened, merged as closed, synchronized, review requests; issue events of a pull request as pull_request_*', async () => {
    const { services, world } = setUp();
    world.pulls.set('1:8', pull);
    const opened = await built(plansOf(services, 'cairn.pull_request.opened', PullRequestEvent, PullRequestEvent.fromPartial({ meta, pull }))[0]);
    expect(Object.keys(opened)).toEqual(['action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review']);
    const merged = { ...pull, hasMerged: true, issue: { ...pullIssue, isClosed: true, pullMergedAt: new Date() } };
    const mergedPlans = plansOf(services, 'cairn.pull_request.merged', PullRequestEvent, PullRequestEvent.fromPartial({ meta, pull: merged }));
    const mergedPayload = await built(mergedPlans[0]);
    expect([mergedPlans[0].eventType, mergedPayload.action, (mergedPayload.pull_request as Record<string, unknown>).merged]).toEqual(['pull_request', 'closed', true]);
    // The merge's cairn.issue.closed gives nothing more.
    expect(plansOf(services, 'cairn.issue.closed', IssueEvent, IssueEvent.fromPartial({ meta, issue: merged.issue }))).toEqual([]);
    expect(plansOf(services, 'cairn.pull_request.synchronized', PullRequestEvent, PullRequestEvent.fromPartial({ meta, pull }))[0].eventType).toBe('pull_request_sync');
    const requested = plansOf(services, 'cairn.pull_request.review_requested', PullRequestEvent, PullRequestEvent.fromPartial({ meta, pull, reviewerIds: [10] }));
    const requestPayload = await built(requested[0]);
    expect([requested[0].eventType, requestPayload.action, (requestPayload.requested_reviewer as Record<string, unknown>).login]).toEqual([
      'pull_request_review_request',
      'review_requested',
      'alice',
    ]);
    const labeled = plansOf(services, 'cairn.issue.labeled', IssueEvent, IssueEvent.fromPartial({ meta, issue: pullIssue, addedLabels: [Label.fromPartial({ id: 5, repoId: 1 })] }));
    expect(labeled[0].eventType).toBe('pull_request_label');
    expect(Object.keys(await built(labeled[0]))).toContain('pull_request');
    expect(plansOf(services, 'cairn.issue.opened', IssueEvent, IssueEvent.fromPartial({ meta, issue: pullIssue }))).toEqual([]);
  });

  it('a submitted review: approved, rejected, comment with review {type, content}', async () => {
    const { services } = setUp();
    const kinds = [
      ['APPROVED', 'pull_request_review_approved'],
      ['REQUEST_CHANGES', 'pull_request_review_rejected'],
      ['COMMENT', 'pull_request_review_comment'],
    ];
    for (const [state, type] of kinds) {
      const review = Review.fromPartial({ id: 3, issueId: 101, reviewerId: 30, state, body: 'LGTM' });
      const plans = plansOf(services, 'cairn.pull_review.submitted', PullReviewEvent, PullReviewEvent.fromPartial({ meta, pull, review }));
      const payload = await built(plans[0]);
      expect([plans[0].eventType, payload.action, payload.review]).toEqual([type, 'reviewed', { type, content: 'LGTM' }]);
    }
  });
});

describe('repository, fork, release, status', () => {
  it('repository created and deleted', async () => {
    const { services, world } = setUp();
    const created = plansOf(services, 'cairn.repo.created', RepoCreated, RepoCreated.fromPartial({ meta, repository: world.repositories.get(1) }));
    const payload = await built(created[0]);
    expect(Object.keys(payload)).toEqual(['action', 'repository', 'organization', 'sender']);
    expect(payload.action).toBe('created');
    const deleted = plansOf(services, 'cairn.repo.deleted', RepoDeleted, RepoDeleted.fromPartial({ meta, repoId: 9, ownerId: 10, ownerName: 'alice', name: 'gone' }));
    const deletedPayload = await built(deleted[0]);
    expect([deletedPayload.action, (deletedPayload.repository as Record<string, unknown>).full_name]).toEqual(['deleted', 'alice/gone']);
  });

  it('fork: forkee is the original, repository the fork; an organization fork also gives repository created', async () => {
    const { services, world } = setUp();
    const read = planEvent(services, 'cairn.repo.forked', encodeEvent(RepoForked, RepoForked.fromPartial({ meta, repository: world.repositories.get(2), baseRepoId: 1 })));
    if (read === undefined || 'problem' in read) throw new Error('no plans');
    expect(read.plans.map((plan) => [plan.repoId, plan.payloads[0].eventType])).toEqual([
      [1, 'fork'],
      [2, 'repository'],
    ]);
    const fork = await built(read.plans[0].payloads[0]);
    expect(Object.keys(fork)).toEqual(['forkee', 'repository', 'sender']);
    expect([(fork.forkee as Record<string, unknown>).id, (fork.repository as Record<string, unknown>).id]).toEqual([1, 2]);
  });

  it('release and status', async () => {
    const { services } = setUp();
    const release = Release.fromPartial({ id: 4, repoId: 1, tagName: 'v1', name: 'One', publisherId: 10, created: new Date() });
    const published = await built(plansOf(services, 'cairn.release.published', ReleasePublished, ReleasePublished.fromPartial({ meta, release }))[0]);
    expect(Object.keys(published)).toEqual(['action', 'release', 'repository', 'sender']);
    expect(published.action).toBe('published');
    const status = await built(
      plansOf(services, 'cairn.commit_status.created', CommitStatusCreated, CommitStatusCreated.fromPartial({ meta, repoId: 1, sha: sha(2), context: 'ci', state: 'success', index: 1 }))[0],
    );
    expect(Object.keys(status).sort()).toEqual(['commit', 'context', 'created_at', 'description', 'id', 'repository', 'sender', 'sha', 'state', 'target_url', 'updated_at']);
    expect((status.commit as Record<string, unknown>).id).toBe(sha(2));
  });

  it('subjects with no webhook give nothing', () => {
    const { services } = setUp();
    expect(planEvent(services, 'cairn.label.created', new Uint8Array())).toBeUndefined();
    expect(planEvent(services, 'cairn.repo.updated', new Uint8Array())).toBeUndefined();
  });
});
