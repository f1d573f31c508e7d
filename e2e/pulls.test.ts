/**
 * Pull requests end to end on the built supervisor, with branches made by real `git push` over smart HTTP and every
 * API answer checked against Gitea's description: same-repository and fork pull requests, their files, commits,
 * diff and patch; a clean merge in every style (the base branch moving to the merge commit) (conflicts, status checks
 * and signing have their own files); the manual merge refused while the repository does not allow it and
 * accepted once it does; reviews with dismissal and undismissal; required approvals and the admin override; and bad
 * input (unknown style, head equal to base, missing branches, merging twice) answered with Gitea's 4xx.
 */
import { type Pull, type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(240_000);

interface ChangedFile {
  filename: string;
  status: string;
  additions: number;
}
interface Commit {
  sha: string;
  commit: { message: string };
}
interface Review {
  id: number;
  state: string;
  dismissed: boolean;
  user: { login: string };
}

describe('pull requests', () => {
  let fixture: Fixture;
  let w: PullWork;
  /** alice's clone of alice/demo. */
  let work: string;

  const alice = () => fixture.as('alice');
  const carol = () => fixture.as('carol');
  const bob = () => fixture.as('bob');

  const call: PullWork['call'] = (...args) => w.call(...args);
  const gitOk = (args: string[], cwd: string) => w.gitOk(args, cwd);
  const pushBranch = (name: string, file: string, text: string, cwd = work) => w.pushBranch(cwd, name, file, text);
  const mainHead = () => w.branchHead('alice/demo', 'main', alice());
  const createPull = (head: string, title: string, headers = alice()) => w.createPull('alice/demo', head, title, headers);
  const settled = (index: number, want: (pull: Pull) => boolean) => w.settled('alice/demo', index, alice(), want);

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls', ['alice', 'bob', 'carol']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture, ['carol']);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('opens a pull request from a pushed branch and shows its files, commits, diff and patch', async () => {
    const head = await pushBranch('feature', 'feature.txt', 'one\ntwo\n');
    const base = await mainHead();
    const created = await createPull('feature', 'Add the feature');
    expect(created).toMatchObject({ title: 'Add the feature', state: 'open', merged: false, user: { login: 'alice' } });
    expect(created.head).toMatchObject({ label: 'feature', ref: 'feature', sha: head, repo: { full_name: 'alice/demo' } });
    expect(created.base).toMatchObject({ label: 'main', ref: 'main', sha: base, repo: { full_name: 'alice/demo' } });

    const pull = await settled(created.number, (p) => p.mergeable);
    expect(pull).toMatchObject({ merge_base: base, additions: 2, deletions: 0, changed_files: 1 });

    const list = await call<Pull[]>('GET', '/repos/alice/demo/pulls?state=open', alice());
    expect(list.status).toBe(200);
    expect(list.body.map((p) => p.number)).toContain(created.number);
    expect(list.headers.get('x-total-count')).not.toBeNull();
    expect(list.body[0]).not.toHaveProperty('additions');
    // Anyone may read a public repository's pull requests.
    const anonymous = await call<Pull>('GET', `/repos/alice/demo/pulls/${created.number}`);
    expect(anonymous).toMatchObject({ status: 200, body: { number: created.number, mergeable: true } });

    const files = await call<ChangedFile[]>('GET', `/repos/alice/demo/pulls/${created.number}/files`, alice());
    expect(files.status).toBe(200);
    expect(files.body).toEqual([expect.objectContaining({ filename: 'feature.txt', status: 'added', additions: 2 })]);

    const commits = await call<Commit[]>('GET', `/repos/alice/demo/pulls/${created.number}/commits`, alice());
    expect(commits.status).toBe(200);
    expect(commits.body.map((c) => c.sha)).toEqual([head]);

    const diff = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/demo/pulls/${created.number}.diff`, { headers: alice() });
    expect(diff.status).toBe(200);
    const diffText = await diff.text();
    expect(diffText).toContain('diff --git a/feature.txt b/feature.txt');
    expect(diffText).toContain('+two');
    const patch = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/alice/demo/pulls/${created.number}.patch`, { headers: alice() });
    expect(patch.status).toBe(200);
    expect(await patch.text()).toContain('Subject: [PATCH] change feature.txt');

    const byBranches = await call<Pull>('GET', '/repos/alice/demo/pulls/main/feature', alice());
    expect(byBranches).toMatchObject({ status: 200, body: { number: created.number } });
    expect((await call('GET', '/repos/alice/demo/pulls/main/no-such-branch', alice())).status).toBe(404);
    expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(404);
    // A second pull request of the same branches is refused.
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'feature', base: 'main', title: 'Again' })).status).toBe(409);
  });

  it('edits the title, labels, state and maintainer edits; a stranger may not', async () => {
    const label = await call<{ id: number }>('POST', '/repos/alice/demo/labels', alice(), { name: 'review-me', color: '#00ff00' });
    expect(label.status).toBe(201);
    const open = await call<Pull>('GET', '/repos/alice/demo/pulls/main/feature', alice());
    const index = open.body.number;
    const edited = await call<Pull & { labels: Array<{ name: string }>; allow_maintainer_edit: boolean }>('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), {
      title: 'Add the feature, edited',
      labels: [label.body.id],
      allow_maintainer_edit: true,
    });
    expect(edited.status).toBe(201);
    expect(edited.body).toMatchObject({ number: index, title: 'Add the feature, edited', allow_maintainer_edit: true });
    expect(edited.body.labels.map((l) => l.name)).toEqual(['review-me']);
    const closed = await call<Pull>('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), { state: 'closed' });
    expect(closed).toMatchObject({ status: 201, body: { state: 'closed' } });
    expect((await call<Pull>('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), { state: 'open' })).body.state).toBe('open');
    expect((await call('PATCH', `/repos/alice/demo/pulls/${index}`, bob(), { title: 'Not mine' })).status).toBe(403);
    expect((await call<Pull>('GET', `/repos/alice/demo/pulls/${index}`, bob())).body.title).toBe('Add the feature, edited');
  });

  it("marks a work in progress as a draft in the pull request and in its issue (Gitea's IsWorkInProgress)", async () => {
    const open = await call<Pull>('GET', '/repos/alice/demo/pulls/main/feature', alice());
    const index = open.body.number;
    type IssueOfPull = { pull_request: { draft: boolean } };
    expect((await call<IssueOfPull>('GET', `/repos/alice/demo/issues/${index}`, alice())).body.pull_request.draft).toBe(false);
    expect((await call<Pull>('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), { title: 'WIP: Add the feature' })).status).toBe(201);
    expect((await call<Pull & { draft: boolean }>('GET', `/repos/alice/demo/pulls/${index}`, alice())).body.draft).toBe(true);
    expect((await call<IssueOfPull>('GET', `/repos/alice/demo/issues/${index}`, alice())).body.pull_request.draft).toBe(true);
    expect((await call<Pull>('PATCH', `/repos/alice/demo/pulls/${index}`, alice(), { title: 'Add the feature, edited' })).status).toBe(201);
  });

  it.each(['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'])('merges cleanly with the %s style', async (style) => {
    const head = await pushBranch(`style-${style}`, `${style}.txt`, `${style}\n`);
    const created = await createPull(`style-${style}`, `Merge by ${style}`);
    await settled(created.number, (p) => p.mergeable);
    const merged = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, carol(), { do: style, merge_title_field: `Merged by ${style}` });
    expect(merged.status).toBe(200);
    expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(204);
    const after = await call<Pull>('GET', `/repos/alice/demo/pulls/${created.number}`, alice());
    expect(after.body).toMatchObject({ merged: true, state: 'closed', merged_by: { login: 'carol' } });
    const main = await mainHead();
    expect(after.body.merge_commit_sha).toBe(main);
    if (style === 'fast-forward-only') expect(main).toBe(head);
    // A merge commit or a squashed commit is a new commit.
    if (style === 'merge' || style === 'rebase-merge' || style === 'squash') expect(main).not.toBe(head);
    // The merged file is on main now.
    const file = await call('GET', `/repos/alice/demo/contents/${style}.txt?ref=main`, alice());
    expect(file.status).toBe(200);
    // Merging twice is refused.
    expect((await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, carol(), { do: style })).status).toBe(405);
  });

  it('refuses the manual merge while the repository does not allow it, and accepts it once it does', async () => {
    const head = await pushBranch('manual', 'manual.txt', 'by hand\n');
    const created = await createPull('manual', 'Merged by hand');
    const refused = await call<{ message: string }>('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'manually-merged', merge_commit_id: head });
    expect(refused.status).toBe(405);
    expect(refused.body.message).toBe('manually-merged is not allowed an allowed merge style for this repository');

    expect((await call('PATCH', '/repos/alice/demo', alice(), { has_pull_requests: true, allow_manual_merge: true })).status).toBe(200);
    // The branch goes into main by a plain push.
    await gitOk(['push', '--quiet', 'origin', 'manual:main'], work);
    const wrong = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'manually-merged', merge_commit_id: 'f'.repeat(40) });
    expect(wrong).toMatchObject({ status: 409, body: { message: 'Wrong commit ID' } });
    const accepted = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'manually-merged', merge_commit_id: head });
    expect(accepted.status).toBe(200);
    const after = await call<Pull>('GET', `/repos/alice/demo/pulls/${created.number}`, alice());
    expect(after.body).toMatchObject({ merged: true, merge_commit_sha: head });
  });

  it('opens and merges a pull request from a fork', async () => {
    expect((await call('POST', '/repos/alice/demo/forks', bob(), {})).status).toBe(202);
    const forkWork = await w.clone('bob/demo', 'bob', 'bob');
    const head = await pushBranch('topic', 'topic.txt', 'from the fork\n', forkWork);
    const created = await createPull('bob:topic', 'From the fork', bob());
    expect(created.head).toMatchObject({ label: 'topic', ref: 'topic', sha: head, repo: { full_name: 'bob/demo' } });
    expect(created.base).toMatchObject({ repo: { full_name: 'alice/demo' } });
    await settled(created.number, (p) => p.mergeable);
    const files = await call<ChangedFile[]>('GET', `/repos/alice/demo/pulls/${created.number}/files`, alice());
    expect(files.body.map((f) => f.filename)).toEqual(['topic.txt']);
    // The pull request of two branches names the fork's head as `owner:branch`; the base repository's own `topic` is not it.
    const byBranches = await call<Pull>('GET', '/repos/alice/demo/pulls/main/bob:topic', alice());
    expect(byBranches).toMatchObject({ status: 200, body: { number: created.number } });
    expect((await call('GET', '/repos/alice/demo/pulls/main/topic', alice())).status).toBe(404);
    expect((await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'merge' })).status).toBe(200);
    expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(204);
    // Its issue half says so too (Gitea's Issue.pull_request).
    const asIssue = await call<{ pull_request: { merged: boolean; merged_at: string | null } }>('GET', `/repos/alice/demo/issues/${created.number}`, alice());
    expect(asIssue.body.pull_request).toMatchObject({ merged: true, merged_at: expect.stringMatching(/^\d{4}-/) });
  });

  it('closes the issues its body names after a close keyword when merged, as the merger', async () => {
    const issue = await call<{ number: number }>('POST', '/repos/alice/demo/issues', bob(), { title: 'Broken' });
    const other = await call<{ number: number }>('POST', '/repos/alice/demo/issues', bob(), { title: 'Only mentioned' });
    await pushBranch('closing', 'closing.txt', 'the fix\n');
    const created = await call<Pull>('POST', '/repos/alice/demo/pulls', alice(), {
      head: 'closing',
      base: 'main',
      title: 'The fix',
      body: `Fixes #${issue.body.number}; see #${other.body.number}.`,
    });
    expect(created.status).toBe(201);
    await settled(created.body.number, (p) => p.mergeable);
    expect((await call('POST', `/repos/alice/demo/pulls/${created.body.number}/merge`, carol(), { do: 'squash' })).status).toBe(200);

    const closed = await call<{ state: string; closed_at: string | null }>('GET', `/repos/alice/demo/issues/${issue.body.number}`, bob());
    expect(closed.body).toMatchObject({ state: 'closed', closed_at: expect.stringMatching(/^\d{4}-/) });
    const timeline = await call<Array<{ type: string; user: { login: string } }>>('GET', `/repos/alice/demo/issues/${issue.body.number}/timeline`, bob());
    expect(timeline.body.at(-1)).toMatchObject({ type: 'close', user: { login: 'carol' } });
    expect((await call<{ state: string }>('GET', `/repos/alice/demo/issues/${other.body.number}`, bob())).body.state).toBe('open');
  });

  it('links a pushed commit on the issues it names, and closes the one it fixes on the default branch', async () => {
    const issue = await call<{ number: number }>('POST', '/repos/alice/demo/issues', bob(), { title: 'Typo' });
    const other = await call<{ number: number }>('POST', '/repos/alice/demo/issues', bob(), { title: 'Related' });
    await gitOk(['fetch', '--quiet', 'origin'], work);
    await gitOk(['checkout', '--quiet', '-B', 'main', 'origin/main'], work);
    const sha = await w.commitFile(work, 'typo.txt', 'fixed\n', `Fix the typo\n\nFixes #${issue.body.number}, see #${other.body.number}`);
    await gitOk(['push', '--quiet', 'origin', 'main:main'], work);

    type Entry = { type: string; ref_commit_sha: string; body: string; user: { login: string } };
    const timelineOf = async (index: number) => (await call<Entry[]>('GET', `/repos/alice/demo/issues/${index}/timeline`, bob())).body;
    const closedAt = await waitFor('the issue to close', async () => {
      const got = await call<{ state: string }>('GET', `/repos/alice/demo/issues/${issue.body.number}`, bob());
      return got.body.state === 'closed' ? got.body : undefined;
    });
    expect(closedAt).toMatchObject({ state: 'closed' });
    expect(await timelineOf(issue.body.number)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'commit_ref', ref_commit_sha: sha, body: `<a href="/alice/demo/commit/${sha}">Fix the typo</a>`, user: expect.objectContaining({ login: 'alice' }) }),
        expect.objectContaining({ type: 'close', user: expect.objectContaining({ login: 'alice' }) }),
      ]),
    );
    const related = await waitFor('the commit reference', async () => {
      const entries = await timelineOf(other.body.number);
      return entries.some((entry) => entry.type === 'commit_ref') ? entries : undefined;
    });
    expect(related.map((entry) => entry.type)).toEqual(['commit_ref']);
    expect((await call<{ state: string }>('GET', `/repos/alice/demo/issues/${other.body.number}`, bob())).body.state).toBe('open');
  });

  it('reviews: approval by a writer, dismissal and undismissal by the owner, requested reviewers', async () => {
    await pushBranch('reviewed', 'reviewed.txt', 'please review\n');
    const created = await createPull('reviewed', 'Please review');
    const requested = await call<Review[]>('POST', `/repos/alice/demo/pulls/${created.number}/requested_reviewers`, alice(), { reviewers: ['carol'] });
    expect(requested.status).toBe(201);
    expect(requested.body).toEqual([expect.objectContaining({ state: 'REQUEST_REVIEW', user: expect.objectContaining({ login: 'carol' }) })]);
    const unknown = await call('POST', `/repos/alice/demo/pulls/${created.number}/requested_reviewers`, alice(), { reviewers: ['nobody'] });
    expect(unknown.status).toBe(404);

    const asked = await call<Pull & { requested_reviewers: Array<{ login: string }> }>('GET', `/repos/alice/demo/pulls/${created.number}`, bob());
    expect(asked.body.requested_reviewers.map((user) => user.login)).toEqual(['carol']);
    // Issue search's review_requested finds it for carol (and for nobody else), until she reviews it.
    const requestedOf = async (auth: Record<string, string>) => {
      const found = await call<Array<{ number: number }>>('GET', '/repos/issues/search?type=pulls&review_requested=true', auth);
      expect(found.status).toBe(200);
      return found.body.map((issue) => issue.number);
    };
    expect(await requestedOf(carol())).toEqual([created.number]);
    expect(await requestedOf(bob())).toEqual([]);

    const approved = await call<Review>('POST', `/repos/alice/demo/pulls/${created.number}/reviews`, carol(), { event: 'APPROVED', body: 'fine' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'APPROVED', dismissed: false, user: { login: 'carol' } });
    expect(await requestedOf(carol())).toEqual([]);
    // The poster may not approve their own pull request.
    const own = await call<{ message: string }>('POST', `/repos/alice/demo/pulls/${created.number}/reviews`, alice(), { event: 'APPROVED' });
    expect(own.status).toBe(422);

    const byWriter = await call('POST', `/repos/alice/demo/pulls/${created.number}/reviews/${approved.body.id}/dismissals`, carol(), { message: 'no' });
    expect(byWriter.status).toBe(403);
    const dismissed = await call<Review>('POST', `/repos/alice/demo/pulls/${created.number}/reviews/${approved.body.id}/dismissals`, alice(), { message: 'stale' });
    expect(dismissed).toMatchObject({ status: 200, body: { id: approved.body.id, dismissed: true } });
    const undismissed = await call<Review>('POST', `/repos/alice/demo/pulls/${created.number}/reviews/${approved.body.id}/undismissals`, alice());
    expect(undismissed).toMatchObject({ status: 200, body: { dismissed: false } });

    const reviews = await call<Review[]>('GET', `/repos/alice/demo/pulls/${created.number}/reviews`, bob());
    expect(reviews.status).toBe(200);
    expect(reviews.body.map((r) => r.state)).toContain('APPROVED');
    const one = await call<Review>('GET', `/repos/alice/demo/pulls/${created.number}/reviews/${approved.body.id}`, bob());
    expect(one).toMatchObject({ status: 200, body: { id: approved.body.id } });
  });

  it('honours required approvals, which a repository admin may override with force_merge', async () => {
    await pushBranch('protected', 'protected.txt', 'needs approval\n');
    const created = await createPull('protected', 'Needs an approval');
    await settled(created.number, (p) => p.mergeable);
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), { rule_name: 'main', enable_push: true, required_approvals: 1 });
    expect(rule.status).toBe(201);
    try {
      const byWriter = await call<{ message: string }>('POST', `/repos/alice/demo/pulls/${created.number}/merge`, carol(), { do: 'merge', force_merge: true });
      expect(byWriter).toMatchObject({ status: 405, body: { message: 'Does not have enough approvals' } });
      const unforced = await call<{ message: string }>('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'merge' });
      expect(unforced).toMatchObject({ status: 405, body: { message: 'Does not have enough approvals' } });
      const forced = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'merge', force_merge: true });
      expect(forced.status).toBe(200);
      expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(204);
    } finally {
      expect((await call('DELETE', '/repos/alice/demo/branch_protections/main', alice())).status).toBe(204);
    }
  });

  it("answers bad input with Gitea's 4xx and changes nothing", async () => {
    const before = await mainHead();
    const same = await call<{ message: string }>('POST', '/repos/alice/demo/pulls', alice(), { head: 'main', base: 'main', title: 'Same' });
    expect(same).toMatchObject({ status: 422, body: { message: 'Invalid PullRequest: There are no changes between the head and the base' } });
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'no-such-branch', base: 'main', title: 'x' })).status).toBe(404);
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'feature', base: 'no-such-base', title: 'x' })).status).toBe(404);
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'nobody:feature', base: 'main', title: 'x' })).status).toBe(404);
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'feature', base: 'main' })).status).toBe(422);
    expect((await call('POST', '/repos/alice/demo/pulls', alice(), { head: 'feature', base: 'main', title: 'x', milestone: 999 })).status).toBe(404);
    const open = await call<Pull>('GET', '/repos/alice/demo/pulls/main/feature', alice());
    const index = open.body.number;
    const unknownStyle = await call<{ message: string }>('POST', `/repos/alice/demo/pulls/${index}/merge`, alice(), { do: 'octopus' });
    expect(unknownStyle).toMatchObject({ status: 422, body: { message: '[Do]: In' } });
    expect((await call('POST', `/repos/alice/demo/pulls/${index}/merge`, alice(), {})).status).toBe(422);
    expect((await call('POST', `/repos/alice/demo/pulls/${index}/merge`, bob(), { do: 'merge' })).status).toBe(405);
    expect((await call('POST', '/repos/alice/demo/pulls/99999/merge', alice(), { do: 'merge' })).status).toBe(404);
    expect((await call('GET', '/repos/alice/demo/pulls/99999', alice())).status).toBe(404);
    expect(await mainHead()).toBe(before);
  });
});
