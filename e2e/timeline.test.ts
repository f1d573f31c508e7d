/**
 * The issue timeline end to end (`GET /repos/{owner}/{repo}/issues/{index}/timeline`), every answer checked against
 * Gitea's `TimelineComment` by the validating client: a pull request edited (title, labels, milestone, assignee,
 * closed and reopened), a review requested, its head pushed to and merged with delete_branch_after_merge lists
 * Gitea's entry types in order; an issue's comments stay the only comments (comment list, `comments` count); paging
 * with X-Total-Count; a reader without the unit gets 404.
 */
import { type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

interface TimelineComment {
  id: number;
  type: string;
  body: string;
  user: { login: string } | null;
  old_title: string;
  new_title: string;
  old_ref: string;
  label: { name: string } | null;
  milestone: { title: string } | null;
  assignee: { login: string } | null;
  removed_assignee: boolean;
  pull_request_url: string;
  issue_url: string;
}

describe('issue timeline', () => {
  let fixture: Fixture;
  let w: PullWork;
  let work: string;
  const alice = () => fixture.as('alice');

  beforeAll(async () => {
    fixture = await startFixture('e2e_timeline', ['alice', 'bob']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture, ['bob']);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  const timeline = (index: number, query = '', headers = alice()) =>
    w.call<TimelineComment[]>('GET', `/repos/alice/demo/issues/${index}/timeline${query}`, headers);

  it('lists a pull request’s changes with Gitea’s types', async () => {
    await w.pushBranch(work, 'feature', 'feature.txt', 'one\n');
    const created = await w.createPull('alice/demo', 'feature', 'First title', alice());
    const index = created.number;
    await w.settled('alice/demo', index, alice(), (p) => p.mergeable);

    const label = await w.call<{ id: number }>('POST', '/repos/alice/demo/labels', alice(), { name: 'bug', color: '#ee0701' });
    expect(label.status).toBe(201);
    const milestone = await w.call<{ id: number }>('POST', '/repos/alice/demo/milestones', alice(), { title: 'v1' });
    expect(milestone.status).toBe(201);

    const patch = (body: unknown) => w.call('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), body);
    expect((await patch({ title: 'Second title' })).status).toBe(201);
    expect((await w.call('POST', `/repos/alice/demo/issues/${index}/labels`, alice(), { labels: [label.body.id] })).status).toBe(200);
    expect((await patch({ milestone: milestone.body.id })).status).toBe(201);
    expect((await patch({ assignees: ['bob'] })).status).toBe(201);
    expect((await patch({ state: 'closed' })).status).toBe(201);
    expect((await patch({ state: 'open' })).status).toBe(201);
    expect((await w.call('POST', `/repos/alice/demo/pulls/${index}/requested_reviewers`, alice(), { reviewers: ['bob'] })).status).toBe(201);

    const pushed = await w.pushToBranch(work, 'feature', 'more.txt', 'two\n');
    await w.settled('alice/demo', index, alice(), (p) => p.head.sha === pushed && p.mergeable);
    let entries = (await timeline(index)).body;
    for (let i = 0; i < 50 && !entries.some((entry) => entry.type === 'pull_push'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      entries = (await timeline(index)).body;
    }

    const merged = await w.call('POST', `/repos/alice/demo/pulls/${index}/merge`, alice(), { Do: 'merge', delete_branch_after_merge: true });
    expect(merged.status).toBe(200);

    // The merge commit's message names the pull request ("… (#1) …"): issues-commit-refs links it, after the merge.
    let answer = await timeline(index);
    for (let i = 0; i < 50 && !answer.body.some((entry) => entry.type === 'commit_ref'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await timeline(index);
    }
    expect(answer.status).toBe(200);
    const list = answer.body;
    const mergeCommit = (await w.call<{ merge_commit_sha: string }>('GET', `/repos/alice/demo/pulls/${index}`, alice())).body.merge_commit_sha;
    expect(list.filter((entry) => entry.type === 'commit_ref')).toEqual([expect.objectContaining({ ref_commit_sha: mergeCommit, user: expect.objectContaining({ login: 'alice' }) })]);
    expect(list.map((entry) => entry.type).filter((type) => type !== 'commit_ref')).toEqual([
      'change_title',
      'label',
      'milestone',
      'assignees',
      'close',
      'reopen',
      'review_request',
      'pull_push',
      'merge_pull',
      'delete_branch',
    ]);
    expect(answer.headers.get('x-total-count')).toBe(String(list.length));
    const byType = (type: string) => list.find((entry) => entry.type === type) as TimelineComment;
    expect(byType('change_title')).toMatchObject({ old_title: 'First title', new_title: 'Second title', user: { login: 'alice' } });
    expect(byType('label')).toMatchObject({ body: '1', label: { name: 'bug' } });
    expect(byType('milestone')).toMatchObject({ milestone: { title: 'v1' } });
    expect(byType('assignees')).toMatchObject({ assignee: { login: 'bob' }, removed_assignee: false });
    expect(byType('review_request')).toMatchObject({ assignee: { login: 'bob' } });
    expect(JSON.parse(byType('pull_push').body)).toEqual({ is_force_push: false, commit_ids: [pushed] });
    expect(byType('delete_branch')).toMatchObject({ old_ref: 'feature' });
    expect(byType('merge_pull').pull_request_url).toContain(`/alice/demo/pulls/${index}`);
    expect(byType('merge_pull').issue_url).toBe('');

    const page = await timeline(index, '?page=2&limit=4');
    expect(page.status).toBe(200);
    expect(page.body.map((entry) => entry.type)).toEqual(['close', 'reopen', 'review_request', 'pull_push']);
    expect(page.headers.get('x-total-count')).toBe(String(list.length));
  });

  it('keeps comments the only comments on an issue', async () => {
    const created = await w.call<{ number: number }>('POST', '/repos/alice/demo/issues', alice(), { title: 'An issue' });
    expect(created.status).toBe(201);
    const index = created.body.number;
    expect((await w.call('PATCH', `/repos/alice/demo/issues/${index}`, alice(), { title: 'Renamed', due_date: '2030-01-02T00:00:00Z' })).status).toBe(201);
    expect((await w.call('POST', `/repos/alice/demo/issues/${index}/comments`, fixture.as('bob'), { body: 'hello' })).status).toBe(201);

    const list = (await timeline(index)).body;
    expect(list.map((entry) => entry.type)).toEqual(['change_title', 'added_deadline', 'comment']);
    expect(list[1].body).toBe('2030-01-02');
    expect(list[2]).toMatchObject({ body: 'hello', user: { login: 'bob' }, pull_request_url: '' });
    expect(list[2].issue_url).toContain(`/alice/demo/issues/${index}`);

    const comments = await w.call<unknown[]>('GET', `/repos/alice/demo/issues/${index}/comments`, alice());
    expect(comments.body).toHaveLength(1);
    const issue = await w.call<{ comments: number }>('GET', `/repos/alice/demo/issues/${index}`, alice());
    expect(issue.body.comments).toBe(1);

    expect((await timeline(999)).status).toBe(404);
    expect((await timeline(index, '?since=yesterday')).status).toBe(422);
  });
});
