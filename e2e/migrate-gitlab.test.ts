/**
 * Imports from GitLab (POST /repos/migrate, service gitlab) end to end: the GitLab fixture server of @cairn/testing
 * (API v4 answers in GitLab's shapes, paged 2 at a time, one 429 with Retry-After on the way, the git data over smart
 * HTTP) allowed by ALLOW_LOCALNETWORKS. The copy is compared through Cairn's API with the fixture's data: git refs,
 * topics, labels (GitLab's scoped labels exclusive), milestones, issues (merge request numbers after them), comments,
 * reactions (Gitea's names), releases, merge requests as pull requests (one from a fork, its branch fetched from the
 * fork's clone URL) with approvals as reviews, comments and diffs, and original authors (GitLab shows no e-mail
 * addresses: every author is kept as an original author under the importing user). Confidential issues and internal
 * notes never arrive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GITLAB_TOKEN, type GitlabFixture, startGitlabFixture } from '@cairn/testing';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

/** git's output; asynchronous, as the fixture's git server answers in this process. */
const git = async (...args: string[]): Promise<string> => (await promisify(execFile)('git', args, { encoding: 'utf8' })).stdout;

describe('POST /repos/migrate with items from a gitlab source (fixture server)', () => {
  let fixture: Fixture;
  let gitlab: GitlabFixture;
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const list = async (path: string, headers: Record<string, string>): Promise<Json[]> => {
    const answer = await call('GET', path, headers);
    expect(answer.status).toBe(200);
    return (answer.body as unknown as Json[] | null) ?? [];
  };
  const loginOf = (value: unknown) => (value as Json | null)?.login;

  beforeAll(async () => {
    gitlab = await startGitlabFixture({
      before: { '/api/v4/projects/42/issues': [{ status: 429, headers: { 'retry-after': '1' }, body: { message: '429 Too Many Requests' } }] },
    });
    fixture = await startFixture('e2e_migrate_gitlab', ['erin'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
  });

  afterAll(async () => {
    await fixture?.stop();
    await gitlab?.close();
  });

  it('imports git data, topics, labels, milestones, issues with comments and reactions, releases, and merge requests with approvals', async () => {
    const erin = fixture.as('erin');
    const migrated = await call('POST', '/repos/migrate', erin, {
      clone_addr: `${gitlab.projectUrl}.git`,
      repo_name: 'tools',
      service: 'gitlab',
      auth_token: GITLAB_TOKEN,
      labels: true,
      milestones: true,
      issues: true,
      pull_requests: true,
      releases: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'erin/tools', default_branch: 'main' })]);
    const status = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/erin/tools/migration`, { headers: erin });
    expect(await status.json()).toMatchObject({ status: 4, message: '' });

    // Git data: the fixture's branches and tags at their commits.
    const branches = await list('/repos/erin/tools/branches', erin);
    // carol/carol-fix: the open fork merge request's branch, fetched from the fork (Gitea's <owner>/<ref>).
    expect(Object.fromEntries(branches.map((branch) => [branch.name, (branch.commit as Json).id]))).toEqual({
      main: gitlab.commits.merge,
      feature: gitlab.commits.feature,
      wip: gitlab.commits.second,
      'carol/carol-fix': gitlab.commits.fork,
    });
    const tags = await list('/repos/erin/tools/tags', erin);
    expect(Object.fromEntries(tags.map((tag) => [tag.name, (tag.commit as Json).sha]))).toEqual({ 'v0.9.0': gitlab.commits.initial, 'v1.0.0': gitlab.commits.second });

    expect((await call('GET', '/repos/erin/tools/topics', erin)).body).toEqual({ topics: ['cli', 'tools'] });

    const labels = await list('/repos/erin/tools/labels', erin);
    expect(labels.map(({ name, color, description, exclusive }) => ({ name, color, description, exclusive }))).toEqual([
      { name: 'bug', color: 'd9534f', description: 'Something is broken', exclusive: false },
      { name: 'priority::high', color: 'ff0000', description: '', exclusive: true },
      { name: 'priority::low', color: '00ff00', description: 'Later', exclusive: true },
    ]);

    const milestones = await list('/repos/erin/tools/milestones?state=all', erin);
    expect(
      milestones.map(({ title, description, state, due_on, closed_at }) => ({ title, description, state, due_on, closed_at })).sort((a, b) => String(a.title).localeCompare(String(b.title))),
    ).toEqual([
      { title: 'v0.9', description: '', state: 'closed', due_on: null, closed_at: '2023-12-01T08:00:00Z' },
      { title: 'v1.0', description: 'First release', state: 'open', due_on: '2024-06-30T00:00:00Z', closed_at: null },
    ]);

    // Issues keep GitLab's numbers; 4 was deleted at the source and 6 is confidential: neither is here.
    const issues = (await list('/repos/erin/tools/issues?state=all&type=issues', erin)).sort((a, b) => (a.number as number) - (b.number as number));
    const shape = issues.map((issue) => ({
      number: issue.number,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      is_locked: issue.is_locked,
      user: loginOf(issue.user),
      original_author: issue.original_author,
      original_author_id: issue.original_author_id,
      labels: (issue.labels as Json[]).map((label) => label.name),
      milestone: (issue.milestone as Json | null)?.title ?? null,
      created_at: issue.created_at,
      closed_at: issue.closed_at,
    }));
    expect(shape).toEqual([
      { number: 1, title: 'Issue 1', body: 'Body of 1', state: 'open', is_locked: false, user: 'erin', original_author: 'alice', original_author_id: 1, labels: ['bug'], milestone: 'v1.0', created_at: '2024-02-01T08:00:00Z', closed_at: null },
      { number: 2, title: 'Issue 2', body: 'Body of 2', state: 'closed', is_locked: true, user: 'erin', original_author: 'carol', original_author_id: 3, labels: ['priority::high'], milestone: 'v0.9', created_at: '2024-02-02T08:00:00Z', closed_at: '2024-02-05T10:00:00Z' },
      { number: 3, title: 'Issue 3', body: 'Body of 3', state: 'open', is_locked: false, user: 'erin', original_author: 'bob', original_author_id: 2, labels: [], milestone: null, created_at: '2024-02-03T08:00:00Z', closed_at: null },
      { number: 5, title: 'Issue 5', body: 'Body of 5', state: 'open', is_locked: false, user: 'erin', original_author: 'alice', original_author_id: 1, labels: ['bug', 'priority::low'], milestone: null, created_at: '2024-02-06T08:00:00Z', closed_at: null },
    ]);
    expect((await call('GET', '/repos/erin/tools/issues/6', erin)).status).toBe(404);

    // Comments: threads flattened, the internal note left behind, a system note kept as text (Gitea's gitlab.go).
    const comments = await list('/repos/erin/tools/issues/1/comments', erin);
    expect(comments.map((comment) => [comment.body, loginOf(comment.user), comment.original_author, comment.created_at])).toEqual([
      ['Me too', 'erin', 'bob', '2024-02-01T10:00:00Z'],
      ['Which version?', 'erin', 'carol', '2024-02-01T11:00:00Z'],
      ['v1.0', 'erin', 'alice', '2024-02-01T12:00:00Z'],
      ['changed the description', 'erin', 'alice', '2024-02-01T14:00:00Z'],
    ]);
    expect((await list('/repos/erin/tools/issues/2/comments', erin)).map((comment) => comment.body)).toEqual(['Fixed in main']);

    // Reactions under Gitea's names, by original authors (Gitea's "name(service)" replacement users); alice's
    // `coffee`, which Gitea's reactions lack, is kept under its GitLab name and not listed ([ui] REACTIONS lacks it).
    const reactionShape = (reactions: Json[]) => reactions.map((reaction) => [loginOf(reaction.user), reaction.content]);
    expect(reactionShape(await list('/repos/erin/tools/issues/1/reactions', erin))).toEqual([
      ['bob(gitlab)', '+1'],
      ['carol(gitlab)', 'hooray'],
      ['bob(gitlab)', 'laugh'],
    ]);
    expect(reactionShape(await list(`/repos/erin/tools/issues/comments/${comments[0].id as number}/reactions`, erin))).toEqual([['alice(gitlab)', '-1']]);
    expect(reactionShape(await list(`/repos/erin/tools/issues/comments/${comments[1].id as number}/reactions`, erin))).toEqual([
      ['bob(gitlab)', 'heart'],
      ['alice(gitlab)', 'eyes'],
    ]);

    // Releases on the tags the git data brought.
    const releases = await list('/repos/erin/tools/releases', erin);
    expect(
      releases.map(({ tag_name, name, body, draft, prerelease, author }) => ({ tag_name, name, body, draft, prerelease, author: loginOf(author) })),
    ).toEqual([
      { tag_name: 'v1.0.0', name: 'Version 1', body: 'Notes for 1.0', draft: false, prerelease: false, author: 'erin' },
      { tag_name: 'v0.9.0', name: 'v0.9.0', body: '', draft: false, prerelease: false, author: 'erin' },
    ]);

    // Merge requests after the largest issue number (6, confidential yet counted): !1 is #7, !2 #8, !3 (carol's fork) #9.
    const pulls = (await list('/repos/erin/tools/pulls?state=all', erin)).sort((a, b) => (a.number as number) - (b.number as number));
    const pullShape = pulls.map((pull) => ({
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      merged_at: pull.merged_at,
      merge_commit_sha: pull.merge_commit_sha,
      head: (pull.head as Json).ref,
      head_sha: (pull.head as Json).sha,
      base: (pull.base as Json).ref,
      labels: (pull.labels as Json[]).map((label) => label.name),
      milestone: (pull.milestone as Json | null)?.title ?? null,
      created_at: pull.created_at,
    }));
    // A draft is a title prefix here, Gitea's WIP prefixes ("WIP:", "[WIP]"), and Gitea's uploader ignores the source's
    // draft flag: GitLab's "Draft:" title is kept as it is and the copy is no draft.
    expect(pullShape).toEqual([
      { number: 7, title: 'Merge request 1', body: 'Description of !1', state: 'closed', draft: false, merged: true, merged_at: '2024-03-02T10:00:00Z', merge_commit_sha: gitlab.commits.merge, head: 'feature', head_sha: gitlab.commits.feature, base: 'main', labels: ['bug'], milestone: 'v1.0', created_at: '2024-03-01T08:00:00Z' },
      { number: 8, title: 'Draft: Merge request 2', body: 'Description of !2', state: 'open', draft: false, merged: false, merged_at: null, merge_commit_sha: null, head: 'wip', head_sha: gitlab.commits.second, base: 'main', labels: [], milestone: null, created_at: '2024-03-02T08:00:00Z' },
      { number: 9, title: 'Fix from a fork', body: 'Description of !3', state: 'open', draft: false, merged: false, merged_at: null, merge_commit_sha: null, head: 'carol/carol-fix', head_sha: gitlab.commits.fork, base: 'main', labels: [], milestone: null, created_at: '2024-03-03T08:00:00Z' },
    ]);
    // Every pull request's head is here, so refs/pull/<n>/head points at it (as the copy's git serves it).
    const pullRefs = await git('-c', `http.extraHeader=Authorization: ${erin.authorization}`, 'ls-remote', `${fixture.instance.httpUrl}/erin/tools.git`, 'refs/pull/*');
    expect(pullRefs.trim().split('\n').sort()).toEqual(pulls.map((pull) => `${(pull.head as Json).sha as string}\trefs/pull/${pull.number as number}/head`).sort());
    // Authors are original authors (GitLab shows no e-mail).
    const pullAuthors: unknown[][] = [];
    for (const pull of pulls) {
      const issue = (await call('GET', `/repos/erin/tools/issues/${pull.number as number}`, erin)).body;
      pullAuthors.push([pull.number, loginOf(issue.user), issue.original_author, issue.original_author_id]);
    }
    expect(pullAuthors).toEqual([
      [7, 'erin', 'bob', 2],
      [8, 'erin', 'carol', 3],
      [9, 'erin', 'carol', 3],
    ]);
    // Approvals as APPROVED reviews (carol approved !1; !2's edition has none); the comments of #7 (the system note
    // about the target branch and the merge event are not plain comments).
    const reviews = await list('/repos/erin/tools/pulls/7/reviews', erin);
    expect(reviews.map((review) => [loginOf(review.user), review.state, review.body])).toEqual([['erin', 'APPROVED', '']]);
    expect(await list('/repos/erin/tools/pulls/8/reviews', erin)).toEqual([]);
    expect((await list('/repos/erin/tools/issues/7/comments', erin)).map((comment) => [comment.body, loginOf(comment.user), comment.original_author])).toEqual([['LGTM', 'erin', 'alice']]);
    // Each pull request's diff is its head's against its base in the fixture's git data.
    const mirror = mkdtempSync(path.join(tmpdir(), 'cairn-gitlab-e2e-'));
    try {
      await git('clone', '-q', '--mirror', `${gitlab.projectUrl}.git`, mirror);
      for (const pull of pulls) {
        const head = (pull.head as Json).sha as string;
        // The merged one's base is the one GitLab recorded (diff_refs); an open one's is checked again on import, so
        // its diff starts at the merge base with main (!2's wip is in main by now: nothing left to show).
        const base = pull.merged === true ? gitlab.commits.initial : (await git('--git-dir', mirror, 'merge-base', 'main', head)).trim();
        const expected = await git('--git-dir', mirror, 'diff', '-M', base, head);
        const diff = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/erin/tools/pulls/${pull.number as number}.diff`, { headers: erin });
        expect([pull.number, diff.status, await diff.text()]).toEqual([pull.number, 200, expected]);
      }
    } finally {
      rmSync(mirror, { recursive: true, force: true });
    }

    // The confidential issue and the internal note were never read, nor did their text arrive.
    expect(gitlab.requests.some((request) => request.path.includes('/issues/6/'))).toBe(false);
    const everything = JSON.stringify([issues, comments]);
    expect(everything).not.toMatch(/Security hole|Only for the team|The exploit/);

    // The rate-limited answer was waited out and asked again; the token went with every API request.
    const issuePages = gitlab.requests.filter((request) => request.path === '/api/v4/projects/42/issues');
    expect(issuePages[0].query.get('page')).toBe(issuePages[1].query.get('page'));
    expect(gitlab.requests.filter((request) => request.path.startsWith('/api/v4/')).every((request) => request.privateToken === GITLAB_TOKEN)).toBe(true);

    // New issues are numbered after the imported ones.
    const next = await call('POST', '/repos/erin/tools/issues', erin, { title: 'after the import' });
    expect(next.status).toBe(201);
  });
});
