/**
 * ReviewService on a real database, with git-storage and repos faked: creating reviews (states, what each needs,
 * the poster's own pull request, official reviews, line comments, pending reviews and who sees them), submitting,
 * listing, deleting, dismissing, staleness, review requests of users and teams (and issue search's review_requested
 * filter), official reviewers under an approvals allow list, line comments' diff excerpts, resolving conversations,
 * and the events of each change.
 */
import { PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { IssueFilter, SearchIssuesRequest } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { CreateReviewRequest, Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { Code } from '@cairn/rpc';
import { decoded } from './harness';
import { type PullFixture, as, createPull, failure, freshRepo, orgAs, pullRequest, repoAs, startPullFixture } from './pull-fixture';

let fixture: PullFixture;

const POSTER = 7;
const READER = 8;
const WRITER = 9;
const ADMIN = 10;
const SITE_ADMIN = 11;

beforeAll(async () => {
  fixture = await startPullFixture();
});
afterAll(async () => {
  await fixture.stop();
});

/** A repository with an open pull request #1 by POSTER; READER and WRITER may be asked to review. */
async function pullRepo(): Promise<{ repoId: number; issueId: number; head: string }> {
  const repoId = freshRepo(fixture.git);
  for (const [userId, mode] of [
    [POSTER, 'read'],
    [READER, 'read'],
    [WRITER, 'write'],
  ] as const) {
    fixture.git.repositories.set(`${userId}:${repoId}`, repoAs(repoId, userId, mode));
  }
  const pull = await createPull(fixture, pullRequest(repoId, POSTER, 'read'));
  return { repoId, issueId: pull.issue?.id ?? 0, head: pull.headCommitId };
}

function reviewRequest(repoId: number, userId: number, mode: 'none' | 'read' | 'write' | 'admin', fields: Partial<CreateReviewRequest> = {}): CreateReviewRequest {
  return { scope: as(repoId, userId, mode), index: 1, state: 'COMMENT', body: 'looks fine', commitId: '', comments: [], ...fields };
}

async function review(request: CreateReviewRequest): Promise<Review> {
  const { review: made } = await fixture.reviews.createReview(request);
  if (made === undefined) throw new Error('CreateReview answered without a review');
  return made;
}

async function reviewEvents(seq: number): Promise<Array<{ subject: string; event: PullReviewEvent }>> {
  return (await fixture.harness.outbox(seq))
    .filter((row) => row.subject.startsWith('cairn.pull_review.'))
    .map((row) => ({ subject: row.subject, event: decoded(PullReviewEvent, row) }));
}

describe('creating reviews', () => {
  test('an approval by a code writer is official, on the head commit, and publishes cairn.pull_review.submitted', async () => {
    const { repoId, head } = await pullRepo();
    const seq = await fixture.harness.lastSeq();
    const approved = await review(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED', body: '' }));
    expect(approved).toMatchObject({ reviewerId: WRITER, state: 'APPROVED', official: true, commitId: head, stale: false, dismissed: false, commentsCount: 0 });
    const events = await reviewEvents(seq);
    expect(events.map((entry) => entry.subject)).toEqual(['cairn.pull_review.submitted']);
    expect(events[0].event).toMatchObject({ meta: { actorId: WRITER, repoId }, review: { id: approved.id, state: 'APPROVED' }, pull: { issue: { index: 1 } } });
    const byReader = await review(reviewRequest(repoId, READER, 'read', { state: 'REQUEST_CHANGES', body: 'no' }));
    expect(byReader).toMatchObject({ state: 'REQUEST_CHANGES', official: false });
    // A new approval by the same reviewer is the official one.
    const again = await review(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED', body: 'still good' }));
    const { rows } = await fixture.harness.sql.query<{ id: string; official: boolean }>('SELECT id, official FROM reviews WHERE reviewer_id = $1 AND repo_id = $2 ORDER BY id', [
      WRITER,
      repoId,
    ]);
    expect(rows.map((row) => [Number(row.id), row.official])).toEqual([
      [approved.id, false],
      [again.id, true],
    ]);
  });

  test("Gitea's rules: not on one's own pull request, change requests need a body, comments a body or lines", async () => {
    const { repoId } = await pullRepo();
    expect(await failure(fixture.reviews.createReview(reviewRequest(repoId, POSTER, 'read', { state: 'APPROVED' })))).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'approve your own pull is not allowed',
    });
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, POSTER, 'read', { state: 'REQUEST_CHANGES' })))).message).toBe(
      'reject your own pull is not allowed',
    );
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { state: 'REQUEST_CHANGES', body: ' ' })))).message).toBe(
      'review event REQUEST_CHANGES requires a body',
    );
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { state: 'COMMENT', body: '' })))).message).toBe(
      'review event COMMENT requires a body or a comment',
    );
    const badLine = { path: 'a.txt', body: 'x', oldPosition: -1, newPosition: 0 };
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { comments: [badLine] })))).code).toBe(Code.INVALID_ARGUMENT);
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { comments: [{ ...badLine, oldPosition: 1, path: '' }] })))).code).toBe(
      Code.INVALID_ARGUMENT,
    );
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { commitId: "x'; DROP TABLE reviews; --" })))).code).toBe(
      Code.INVALID_ARGUMENT,
    );
    // The poster may comment on their own pull request.
    expect((await review(reviewRequest(repoId, POSTER, 'read'))).state).toBe('COMMENT');
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, 0, 'read')))).code).toBe(Code.UNAUTHENTICATED);
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'none')))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.reviews.createReview({ ...reviewRequest(repoId, READER, 'read'), index: 2 }))).code).toBe(Code.NOT_FOUND);
    const { rows } = await fixture.harness.sql.query('SELECT 1 FROM reviews WHERE repo_id = $1 AND reviewer_id <> $2', [repoId, POSTER]);
    expect(rows).toHaveLength(0);
  });

  test('approving a closed pull request is refused', async () => {
    const { repoId } = await pullRepo();
    await fixture.pulls.editPull({
      scope: as(repoId, POSTER, 'read'),
      index: 1,
      fields: ['state'],
      title: '',
      body: '',
      state: 'closed',
      assigneeIds: [],
      milestoneId: 0,
      baseBranch: '',
      allowMaintainerEdit: false,
      contentVersion: 0,
    });
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED' })))).message).toBe(
      "can't submit review for a closed or merged PR",
    );
    expect((await review(reviewRequest(repoId, WRITER, 'write'))).state).toBe('COMMENT');
  });
});

describe('pending reviews, line comments and submitting', () => {
  test('a pending review with line comments is the reviewer\'s alone until submitted', async () => {
    const { repoId, head } = await pullRepo();
    const seq = await fixture.harness.lastSeq();
    const pending = await review(
      reviewRequest(repoId, READER, 'read', {
        state: '',
        body: '',
        comments: [
          { path: 'src/a.ts', body: 'new side', oldPosition: 0, newPosition: 12 },
          { path: 'src/b.ts', body: 'old side', oldPosition: 3, newPosition: 0 },
        ],
      }),
    );
    expect(pending).toMatchObject({ state: 'PENDING', commentsCount: 2 });
    expect(await reviewEvents(seq)).toEqual([]);
    const list = (userId: number, isAdmin = false) =>
      fixture.reviews.listReviews({ scope: as(repoId, userId, 'read', { isAdmin }), index: 1, page: undefined });
    expect((await list(WRITER)).reviews).toEqual([]);
    expect((await list(WRITER)).total).toBe(0);
    expect((await list(READER)).reviews.map((r) => r.id)).toEqual([pending.id]);
    expect((await list(SITE_ADMIN, true)).reviews.map((r) => r.id)).toEqual([pending.id]);
    expect((await failure(fixture.reviews.getReview({ scope: as(repoId, WRITER, 'read'), index: 1, id: pending.id }))).code).toBe(Code.NOT_FOUND);
    const { comments } = await fixture.reviews.listReviewComments({ scope: as(repoId, READER, 'read'), index: 1, id: pending.id });
    expect(comments.map((c) => [c.path, c.body, c.position, c.originalPosition, c.commitId, c.posterId])).toEqual([
      ['src/a.ts', 'new side', 12, 0, head, READER],
      ['src/b.ts', 'old side', 0, 3, head, READER],
    ]);
    // Only a pending review is submitted, and not into PENDING; someone else's pending review is not found.
    const submit = (userId: number, state: string, id = pending.id) =>
      fixture.reviews.submitReview({ scope: as(repoId, userId, 'read'), index: 1, id, state, body: '' });
    expect((await failure(submit(READER, 'PENDING'))).message).toBe('review stay pending');
    expect((await failure(submit(WRITER, 'COMMENT'))).code).toBe(Code.NOT_FOUND);
    const { review: submitted } = await submit(READER, 'COMMENT');
    expect(submitted).toMatchObject({ id: pending.id, state: 'COMMENT', commentsCount: 2 });
    expect((await reviewEvents(seq)).map((entry) => entry.subject)).toEqual(['cairn.pull_review.submitted']);
    expect((await failure(submit(READER, 'COMMENT'))).message).toBe('only a pending review can be submitted');
    expect((await list(WRITER)).reviews.map((r) => r.id)).toEqual([pending.id]);
  });

  test('a later review reuses the pending one; an empty pending review is refused', async () => {
    const { repoId } = await pullRepo();
    expect((await failure(fixture.reviews.createReview(reviewRequest(repoId, READER, 'read', { state: '', body: '' })))).message).toBe('Review content is empty');
    const pending = await review(reviewRequest(repoId, READER, 'read', { state: '', body: '', comments: [{ path: 'a', body: 'x', oldPosition: 0, newPosition: 1 }] }));
    const done = await review(reviewRequest(repoId, READER, 'read', { state: 'COMMENT', body: '', comments: [{ path: 'b', body: 'y', oldPosition: 0, newPosition: 2 }] }));
    expect(done).toMatchObject({ id: pending.id, state: 'COMMENT', commentsCount: 2 });
  });
});

describe('deleting and dismissing', () => {
  test('the reviewer or a site admin deletes a review; its comments go with it', async () => {
    const { repoId } = await pullRepo();
    const made = await review(reviewRequest(repoId, READER, 'read', { comments: [{ path: 'a', body: 'x', oldPosition: 0, newPosition: 1 }] }));
    const del = (userId: number, isAdmin = false) =>
      fixture.reviews.deleteReview({ scope: as(repoId, userId, 'admin', { isAdmin }), index: 1, id: made.id });
    expect(await failure(del(ADMIN))).toMatchObject({ code: Code.PERMISSION_DENIED, message: 'only admin and user itself can delete a review' });
    const seq = await fixture.harness.lastSeq();
    await del(READER);
    expect((await reviewEvents(seq)).map((entry) => entry.subject)).toEqual(['cairn.pull_review.deleted']);
    const { rows } = await fixture.harness.sql.query('SELECT 1 FROM comments WHERE review_id IS NOT NULL AND repo_id = $1', [repoId]);
    expect(rows).toHaveLength(0);
    expect((await failure(del(READER))).code).toBe(Code.NOT_FOUND);
    const other = await review(reviewRequest(repoId, WRITER, 'write'));
    await fixture.reviews.deleteReview({ scope: as(repoId, SITE_ADMIN, 'read', { isAdmin: true }), index: 1, id: other.id });
  });

  test('repository admins dismiss and undismiss approvals and change requests of open pull requests', async () => {
    const { repoId } = await pullRepo();
    const approval = await review(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED' }));
    const comment = await review(reviewRequest(repoId, READER, 'read'));
    const dismiss = (userId: number, mode: 'write' | 'admin', id: number) =>
      fixture.reviews.dismissReview({ scope: as(repoId, userId, mode), index: 1, id, message: 'outdated', priors: false });
    expect(await failure(dismiss(WRITER, 'write', approval.id))).toMatchObject({ code: Code.PERMISSION_DENIED, message: 'Must be repo admin' });
    expect(await failure(dismiss(ADMIN, 'admin', comment.id))).toMatchObject({ code: Code.PERMISSION_DENIED, message: 'not allowed to dismiss this review type' });
    const seq = await fixture.harness.lastSeq();
    const { review: dismissed } = await dismiss(ADMIN, 'admin', approval.id);
    expect(dismissed).toMatchObject({ id: approval.id, dismissed: true });
    const { review: undismissed } = await fixture.reviews.undismissReview({ scope: as(repoId, ADMIN, 'admin'), index: 1, id: approval.id });
    expect(undismissed?.dismissed).toBe(false);
    expect((await reviewEvents(seq)).map((entry) => entry.subject)).toEqual(['cairn.pull_review.dismissed', 'cairn.pull_review.undismissed']);
    const { rows } = await fixture.harness.sql.query<{ body: string }>('SELECT body FROM comments WHERE type = 32 AND review_id = $1', [approval.id]);
    expect(rows).toEqual([{ body: 'outdated' }]);
    await fixture.harness.sql.query('UPDATE issues SET is_closed = true WHERE repo_id = $1', [repoId]);
    expect(await failure(dismiss(ADMIN, 'admin', approval.id))).toMatchObject({ code: Code.PERMISSION_DENIED, message: 'not allowed to dismiss review of a closed PR' });
  });

  test('a review goes stale when the head moves past its commit', async () => {
    const { repoId } = await pullRepo();
    const approval = await review(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED' }));
    fixture.git.setBranch(repoId, 'feature', 'e'.repeat(40));
    await fixture.pulls.checkPull({ scope: as(repoId, POSTER, 'read'), index: 1 });
    const { review: read } = await fixture.reviews.getReview({ scope: as(repoId, 0, 'read'), index: 1, id: approval.id });
    expect(read).toMatchObject({ stale: true, commitId: approval.commitId });
  });
});

describe('review requests', () => {
  test('writers ask and withdraw; an approval answers; issue search finds pull requests by review_requested', async () => {
    const { repoId, issueId } = await pullRepo();
    const ask = (userId: number, mode: 'read' | 'write', reviewerIds: number[]) =>
      fixture.reviews.requestReviewers({ scope: as(repoId, userId, mode), index: 1, reviewerIds, teamNames: [] });
    expect((await failure(ask(READER, 'read', [WRITER]))).message).toMatch(/^Doer can't choose reviewer/);
    expect((await failure(ask(WRITER, 'write', [POSTER]))).message).toMatch(/^poster of pr can't be reviewer/);
    expect((await failure(ask(WRITER, 'write', [ADMIN]))).message).toMatch(/^Reviewer can't read/);
    const seq = await fixture.harness.lastSeq();
    const { reviews } = await ask(WRITER, 'write', [READER]);
    expect(reviews).toMatchObject([{ reviewerId: READER, state: 'REQUEST_REVIEW' }]);
    expect((await ask(WRITER, 'write', [READER])).reviews).toEqual([]);
    const subjects = (await fixture.harness.outbox(seq)).map((row) => row.subject);
    expect(subjects).toEqual(['cairn.pull_request.review_requested']);
    const { pull } = await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 });
    expect(pull?.requestedReviewerIds).toEqual([READER]);
    const search = async (): Promise<number[]> =>
      (
        await fixture.harness.issues.searchIssues(
          SearchIssuesRequest.fromPartial({ repoIds: [], pullRepoIds: [repoId], filter: IssueFilter.fromPartial({ reviewRequestedId: READER }) }),
        )
      ).issues.map((issue) => issue.id);
    const reviewedBy = async (userId: number): Promise<number[]> =>
      (
        await fixture.harness.issues.searchIssues(
          SearchIssuesRequest.fromPartial({ repoIds: [], pullRepoIds: [repoId], filter: IssueFilter.fromPartial({ reviewedId: userId }) }),
        )
      ).issues.map((issue) => issue.id);
    expect(await search()).toEqual([issueId]);
    expect(await reviewedBy(READER)).toEqual([]);
    await review(reviewRequest(repoId, READER, 'read', { state: 'APPROVED' }));
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerIds).toEqual([]);
    expect(await search()).toEqual([]);
    expect(await reviewedBy(READER)).toEqual([issueId]);
    await review(reviewRequest(repoId, POSTER, 'read'));
    expect(await reviewedBy(POSTER)).toEqual([]);

    await ask(POSTER, 'write', [WRITER]);
    // The reviewer withdraws themselves; READER cannot withdraw someone else.
    expect((await failure(fixture.reviews.cancelReviewRequests({ scope: as(repoId, READER, 'read'), index: 1, reviewerIds: [WRITER], teamNames: [] }))).message).toMatch(
      /^Doer can't remove reviewer/,
    );
    const before = await fixture.harness.lastSeq();
    await fixture.reviews.cancelReviewRequests({ scope: as(repoId, WRITER, 'read'), index: 1, reviewerIds: [WRITER], teamNames: [] });
    expect((await fixture.harness.outbox(before)).map((row) => row.subject)).toEqual(['cairn.pull_request.review_request_removed']);
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerIds).toEqual([]);
    const { rows } = await fixture.harness.sql.query('SELECT 1 FROM reviews WHERE issue_id = $1 AND reviewer_id = $2 AND type = 4', [issueId, WRITER]);
    expect(rows).toHaveLength(0);
  });
});

describe('official reviewers', () => {
  test("with an approvals allow list on the base branch's rule, only those on it are official (code writers not excepted)", async () => {
    const { repoId } = await pullRepo();
    fixture.git.approvals.set(repoId, { userIds: [READER], teamIds: [] });
    expect(await review(reviewRequest(repoId, READER, 'read', { state: 'APPROVED' }))).toMatchObject({ official: true });
    expect(await review(reviewRequest(repoId, WRITER, 'write', { state: 'APPROVED' }))).toMatchObject({ official: false });
    // A comment is never official; a review request of a listed user is.
    expect(await review(reviewRequest(repoId, READER, 'read'))).toMatchObject({ official: false });
    fixture.git.approvals.set(repoId, { userIds: [WRITER], teamIds: [] });
    const { reviews } = await fixture.reviews.requestReviewers({ scope: as(repoId, POSTER, 'read'), index: 1, reviewerIds: [WRITER], teamNames: [] });
    expect(reviews).toMatchObject([{ reviewerId: WRITER, state: 'REQUEST_REVIEW', official: true }]);
  });
});

describe('line comments', () => {
  test("keep Gitea's diff hunk: the file's hunk cut to the line and the lines above it", async () => {
    const { repoId, head } = await pullRepo();
    fixture.git.diffs.set(
      repoId,
      [
        'diff --git a/b.txt b/b.txt',
        'index 1..2 100644',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -1 +1 @@',
        '-x',
        '+y',
        'diff --git a/f.txt b/f.txt',
        'index 1111111..2222222 100644',
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,3 +1,8 @@',
        ' one',
        '+two',
        '+three',
        '+four',
        '+five',
        '+six',
        ' seven',
        ' eight',
        '',
      ].join('\n'),
    );
    const made = await review(
      reviewRequest(repoId, READER, 'read', {
        comments: [
          { path: 'f.txt', body: 'here', oldPosition: 0, newPosition: 7 },
          { path: 'b.txt', body: 'gone', oldPosition: 1, newPosition: 0 },
          { path: 'none.txt', body: 'no diff', oldPosition: 0, newPosition: 1 },
        ],
      }),
    );
    expect(made.timelineCommentId).toBeGreaterThan(0);
    const { comments } = await fixture.reviews.listReviewComments({ scope: as(repoId, READER, 'read'), index: 1, id: made.id });
    expect(comments.map((comment) => comment.diffHunk)).toEqual(['@@ -2,1 +4,4 @@\n+four\n+five\n+six\n seven', '@@ -1 +1 @@\n-x', '']);
    expect(fixture.git.diffRequests.filter((request) => request.repoId === repoId)).toEqual([{ repoId, base: expect.any(String), head }]);
  });

  test('keep `[ui] CODE_COMMENT_LINES` lines up to the commented one', async () => {
    const short = await startPullFixture({ CAIRN__ui__CODE_COMMENT_LINES: '2' });
    try {
      const repoId = freshRepo(short.git);
      await createPull(short, pullRequest(repoId, POSTER, 'read'));
      short.git.diffs.set(repoId, ['diff --git a/f.txt b/f.txt', '--- a/f.txt', '+++ b/f.txt', '@@ -1,2 +1,5 @@', ' one', '+two', '+three', '+four', ' five', ''].join('\n'));
      const { review: made } = await short.reviews.createReview(
        reviewRequest(repoId, READER, 'read', { comments: [{ path: 'f.txt', body: 'here', oldPosition: 0, newPosition: 5 }] }),
      );
      const { comments } = await short.reviews.listReviewComments({ scope: as(repoId, READER, 'read'), index: 1, id: made?.id ?? 0 });
      expect(comments.map((comment) => comment.diffHunk)).toEqual(['@@ -2,1 +4,2 @@\n+four\n five']);
    } finally {
      await short.stop();
    }
  });
});

describe('resolving conversations', () => {
  test("the poster, pull-request writers and official reviewers resolve and unresolve a review comment's conversation", async () => {
    const { repoId } = await pullRepo();
    const made = await review(reviewRequest(repoId, WRITER, 'write', { comments: [{ path: 'a', body: 'x', oldPosition: 0, newPosition: 1 }] }));
    const { comments } = await fixture.reviews.listReviewComments({ scope: as(repoId, READER, 'read'), index: 1, id: made.id });
    const id = comments[0].id;
    expect(comments[0].resolverId).toBe(0);
    const mark = (userId: number, mode: 'read' | 'write', resolve: boolean, commentId = id, more: { archived?: boolean } = {}) =>
      fixture.reviews.resolveReviewComment({ scope: as(repoId, userId, mode, more), id: commentId, resolve });
    const resolver = async (): Promise<number> =>
      (await fixture.reviews.listReviewComments({ scope: as(repoId, READER, 'read'), index: 1, id: made.id })).comments[0].resolverId;
    expect(await failure(mark(READER, 'read', true))).toMatchObject({ code: Code.PERMISSION_DENIED, message: 'user should have permission to resolve comment' });
    await mark(POSTER, 'read', true);
    expect(await resolver()).toBe(POSTER);
    // Already resolved: unchanged.
    await mark(WRITER, 'write', true);
    expect(await resolver()).toBe(POSTER);
    await mark(WRITER, 'write', false);
    expect(await resolver()).toBe(0);
    expect((await failure(mark(POSTER, 'read', true, id, { archived: true }))).code).toBe(Code.PERMISSION_DENIED);
    expect(await failure(mark(POSTER, 'read', true, made.timelineCommentId))).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'comment is not a review comment' });
    expect((await failure(mark(POSTER, 'read', true, 999999))).code).toBe(Code.NOT_FOUND);
    expect((await failure(fixture.reviews.resolveReviewComment({ scope: as(freshRepo(fixture.git), POSTER, 'read'), id, resolve: true }))).code).toBe(Code.NOT_FOUND);
  });
});

/** The review request events since `seq`: subject, users, teams. */
async function requestEvents(seq: number): Promise<Array<[string, number[], number[]]>> {
  return (await fixture.harness.outbox(seq))
    .filter((row) => row.subject.startsWith('cairn.pull_request.review_request'))
    .map((row) => {
      const event = decoded(PullRequestEvent, row);
      return [row.subject, event.reviewerIds, event.reviewerTeamIds];
    });
}

describe('team review requests', () => {
  const ORG = 100;
  const TEAM = 31;
  const OTHER_TEAM = 32;

  beforeAll(() => {
    fixture.accounts.teams.push(
      Team.fromPartial({ id: TEAM, orgId: ORG, name: 'Reviewers', permission: 'none', unitsMap: { 'repo.code': 'write', 'repo.pulls': 'write' } }),
      Team.fromPartial({ id: OTHER_TEAM, orgId: ORG, name: 'Readers', permission: 'none', unitsMap: { 'repo.code': 'read' } }),
    );
    fixture.accounts.memberships.set(READER, [TEAM]);
  });

  test('teams of the organization are asked by name, answered by a member\'s approval, and found by review_requested', async () => {
    const { repoId, issueId } = await pullRepo();
    const ask = (userId: number, mode: 'read' | 'write', teamNames: string[], more: { private?: boolean } = {}) =>
      fixture.reviews.requestReviewers({ scope: orgAs(repoId, userId, mode, more), index: 1, reviewerIds: [], teamNames });
    expect(await failure(ask(WRITER, 'write', ['nobody']))).toMatchObject({ code: Code.NOT_FOUND, message: "Team 'nobody' not exist" });
    expect((await failure(ask(READER, 'read', ['reviewers']))).message).toMatch(/^Doer can't choose reviewer/);
    expect((await failure(ask(WRITER, 'write', ['reviewers'], { private: true }))).message).toMatch(/^Reviewing team can't read repo/);
    // On a user's repository, team reviewers are ignored (as Gitea).
    expect((await fixture.reviews.requestReviewers({ scope: as(repoId, WRITER, 'write'), index: 1, reviewerIds: [], teamNames: ['reviewers'] })).reviews).toEqual([]);

    const seq = await fixture.harness.lastSeq();
    const { reviews } = await ask(WRITER, 'write', ['reviewers']);
    // Official in the answer (the asker writes the code); Gitea then clears the team's official flags.
    expect(reviews).toMatchObject([{ reviewerId: 0, reviewerTeamId: TEAM, state: 'REQUEST_REVIEW', official: true }]);
    // The event names the team (its members are for the consumers to find), no user.
    expect(await requestEvents(seq)).toEqual([['cairn.pull_request.review_requested', [], [TEAM]]]);
    const again = await fixture.harness.lastSeq();
    expect((await ask(WRITER, 'write', ['REVIEWERS'])).reviews).toEqual([]);
    expect(await requestEvents(again)).toEqual([]);
    const listed = await fixture.reviews.listReviews({ scope: as(repoId, 0, 'read'), index: 1, page: undefined });
    expect(listed.reviews).toMatchObject([{ reviewerTeamId: TEAM, official: false }]);
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerTeamIds).toEqual([TEAM]);

    const requestedOf = async (userId: number): Promise<number[]> =>
      (
        await fixture.harness.issues.searchIssues(
          SearchIssuesRequest.fromPartial({ repoIds: [], pullRepoIds: [repoId], filter: IssueFilter.fromPartial({ reviewRequestedId: userId }) }),
        )
      ).issues.map((issue) => issue.id);
    expect(await requestedOf(READER)).toEqual([issueId]);
    expect(await requestedOf(WRITER)).toEqual([]);

    // A member's comment does not answer the request; their approval does.
    await review(reviewRequest(repoId, READER, 'read'));
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerTeamIds).toEqual([TEAM]);
    await review({ ...reviewRequest(repoId, READER, 'read', { state: 'APPROVED' }), scope: orgAs(repoId, READER, 'read') });
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerTeamIds).toEqual([]);
    expect(await requestedOf(READER)).toEqual([]);

    // A private repository's team with access may be asked; a cancellation withdraws the request.
    fixture.git.repoTeams.set(repoId, [OTHER_TEAM]);
    expect((await ask(WRITER, 'write', ['readers'], { private: true })).reviews).toMatchObject([{ reviewerTeamId: OTHER_TEAM }]);
    expect(
      (await failure(fixture.reviews.cancelReviewRequests({ scope: orgAs(repoId, READER, 'read'), index: 1, reviewerIds: [], teamNames: ['readers'] }))).message,
    ).toMatch(/^Doer can't remove reviewer/);
    const cancelled = await fixture.harness.lastSeq();
    await fixture.reviews.cancelReviewRequests({ scope: orgAs(repoId, WRITER, 'write'), index: 1, reviewerIds: [], teamNames: ['readers'] });
    expect((await fixture.pulls.getPull({ scope: as(repoId, 0, 'read'), index: 1 })).pull?.requestedReviewerTeamIds).toEqual([]);
    expect(await requestEvents(cancelled)).toEqual([['cairn.pull_request.review_request_removed', [], [OTHER_TEAM]]]);
    // Withdrawing what is not asked publishes nothing.
    const none = await fixture.harness.lastSeq();
    await fixture.reviews.cancelReviewRequests({ scope: orgAs(repoId, WRITER, 'write'), index: 1, reviewerIds: [], teamNames: ['readers'] });
    expect(await requestEvents(none)).toEqual([]);
  });
});
