/**
 * Imports from GitHub end to end (POST /repos/migrate, service github), against the GitHub stand-in of @cairn/testing
 * (github-fixture.ts: GitHub's API v3 under /api/v3 as GitHub Enterprise serves it, paged by 2 with Link headers, and
 * the repository's git data over smart HTTP): git branches and tags, topics, labels, milestones, issues (the pull
 * requests GitHub lists among them left out) with comments and reactions, pull requests (one from a fork, whose
 * branch is fetched from the fork's clone URL) with their reviews, comments and diffs, and a release with its asset
 * are compared through Cairn's API with the fixture's answers and git data. octocat shows its e-mail, which is a local user's: it becomes that user; hubot and
 * monalisa show none and are kept as original authors, a deleted account as GitHub's "ghost". On an instance with the
 * default host policy the same source is refused before anything connects to it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type GithubFixture, startGithubFixture } from '@cairn/testing';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

/** git's output; asynchronous, as the fixture's git server answers in this process. */
const git = async (...args: string[]): Promise<string> => (await promisify(execFile)('git', args, { encoding: 'utf8' })).stdout;

const TOKEN = 'ghp_e2eFixtureToken';
const loginOf = (value: unknown) => (value as Json | null)?.login;
const time = (value: unknown) => (typeof value === 'string' ? new Date(value).getTime() : value);

describe('POST /repos/migrate from GitHub (the fixture server, ALLOW_LOCALNETWORKS)', () => {
  let github: GithubFixture;
  let fixture: Fixture;
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${path}`, { headers, body });
  const list = async (path: string): Promise<Json[]> => {
    const answer = await call('GET', path, fixture.as('bob'));
    expect([path, answer.status]).toEqual([path, 200]);
    return (answer.body as unknown as Json[] | null) ?? [];
  };

  beforeAll(async () => {
    github = await startGithubFixture({ token: TOKEN });
    // octocat@example.com: the e-mail octocat shows on GitHub.
    fixture = await startFixture('e2e_migrate_github', ['octocat', 'bob'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    const migrated = await call('POST', '/repos/migrate', fixture.as('bob'), {
      clone_addr: github.cloneAddr,
      repo_name: 'widgets',
      service: 'github',
      auth_token: TOKEN,
      labels: true,
      milestones: true,
      issues: true,
      releases: true,
      pull_requests: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'bob/widgets', default_branch: 'main' })]);
  });

  afterAll(async () => {
    await fixture?.stop();
    await github?.close();
  });

  it('brings the git data: branches and tags at the source’s commits', async () => {
    const branches = await list('/repos/bob/widgets/branches');
    // hubot/hubot-fix: the open fork pull request's branch, fetched from the fork (Gitea's <owner>/<ref>).
    expect(branches.map((branch) => [branch.name, (branch.commit as Json).id]).sort()).toEqual([
      ['feature', github.shas.feature],
      ['hubot/hubot-fix', github.shas.fork],
      ['main', github.shas.widget],
    ]);
    const tags = await list('/repos/bob/widgets/tags');
    expect(tags.map((tag) => [tag.name, (tag.commit as Json).sha])).toEqual([['v1.0.0', github.shas.widget]]);
  });

  it('imports topics, labels and milestones', async () => {
    expect((await call('GET', '/repos/bob/widgets/topics', fixture.as('bob'))).body).toEqual({ topics: [...github.data.topics.names].sort() });
    const labels = await list('/repos/bob/widgets/labels');
    expect(labels.map(({ name, color, description }) => ({ name, color, description }))).toEqual(
      github.data.labels.map(({ name, color, description }) => ({ name, color, description })),
    );
    const milestones = await list('/repos/bob/widgets/milestones?state=all');
    const shape = (items: Json[]) =>
      items
        .map(({ title, description, state, due_on, closed_at }) => ({ title, description: description ?? '', state, due_on: time(due_on), closed_at: time(closed_at) }))
        .sort((a, b) => String(a.title).localeCompare(String(b.title)));
    expect(shape(milestones)).toEqual(shape(github.data.milestones as unknown as Json[]));
    // Counted from the imported issues: v1.0 has #1 open, v0.9 #2 closed, v2.0 #6 open.
    expect(milestones.map((m) => [m.title, m.open_issues, m.closed_issues]).sort()).toEqual([
      ['v0.9', 0, 1],
      ['v1.0', 1, 0],
      ['v2.0', 1, 0],
    ]);
  });

  it('imports the issues, not the pull requests listed among them, with their authors', async () => {
    const copy = new Map((await list('/repos/bob/widgets/issues?state=all&type=issues&limit=50')).map((issue) => [issue.number as number, issue]));
    const source = github.data.issues.filter((issue) => !('pull_request' in issue));
    expect([...copy.keys()].sort()).toEqual(source.map((issue) => issue.number));
    for (const issue of source) {
      const imported = copy.get(issue.number) as Json;
      expect({
        number: issue.number,
        title: imported.title,
        body: imported.body,
        state: imported.state,
        is_locked: imported.is_locked,
        comments: imported.comments,
        created_at: time(imported.created_at),
        closed_at: time(imported.closed_at),
        labels: (imported.labels as Json[]).map((label) => label.name),
        milestone: (imported.milestone as Json | null)?.title ?? null,
      }).toEqual({
        number: issue.number,
        title: issue.title,
        body: issue.body ?? '',
        state: issue.state,
        is_locked: issue.locked,
        comments: issue.comments,
        created_at: time(issue.created_at),
        closed_at: time(issue.closed_at),
        labels: (issue.labels as Json[]).map((label) => label.name),
        milestone: (issue.milestone as Json | null)?.title ?? null,
      });
    }
    // octocat by its e-mail; the others, and a deleted account (ghost), kept as original authors of bob's rows.
    const author = (number: number) => [loginOf(copy.get(number)?.user), copy.get(number)?.original_author, copy.get(number)?.original_author_id];
    expect([1, 2, 3, 6].map(author)).toEqual([
      ['octocat', '', 0],
      ['bob', 'monalisa', 2],
      ['bob', 'ghost', 10137],
      ['bob', 'hubot', 480938],
    ]);
    // hubot has no local account: the assignment is dropped (Gitea drops unknown assignees).
    expect(copy.get(1)?.assignees ?? []).toEqual([]);
  });

  it('imports comments in order with their authors, and reactions on issues and comments', async () => {
    const comments = await list('/repos/bob/widgets/issues/1/comments');
    const sourceComments = github.data.comments[1] as Json[];
    expect(comments.map((c) => [c.body, time(c.created_at)])).toEqual(sourceComments.map((c) => [c.body, time(c.created_at)]));
    expect(comments.map((c) => [loginOf(c.user), c.original_author])).toEqual([
      ['bob', 'hubot'],
      ['octocat', ''],
      ['bob', 'monalisa'],
    ]);
    expect((await list('/repos/bob/widgets/issues/3/comments')).map((c) => [c.body, loginOf(c.user), c.original_author])).toEqual([['I was here first', 'bob', 'ghost']]);

    // Reactions: octocat's as octocat, the others' as Gitea's replacement user "<name>(github)".
    const reactions = (items: Json[]) => items.map((r) => [loginOf(r.user), r.content]).sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(reactions(await list('/repos/bob/widgets/issues/1/reactions'))).toEqual([
      ['hubot(github)', '+1'],
      ['monalisa(github)', 'heart'],
      ['octocat', 'hooray'],
    ]);
    expect(reactions(await list('/repos/bob/widgets/issues/3/reactions'))).toEqual([['ghost(github)', 'eyes']]);
    expect(reactions(await list(`/repos/bob/widgets/issues/comments/${comments[0].id as number}/reactions`))).toEqual([['octocat', 'laugh']]);
  });

  it('imports the release on the tag the git data brought, published by octocat (matched by e-mail)', async () => {
    const releases = await list('/repos/bob/widgets/releases');
    expect(releases.map(({ tag_name, target_commitish, name, body, draft, prerelease, author }) => ({ tag_name, target_commitish, name, body, draft, prerelease, author: loginOf(author) }))).toEqual([
      { tag_name: 'v1.0.0', target_commitish: 'main', name: 'Widgets 1.0', body: 'The first widgets.', draft: false, prerelease: false, author: 'octocat' },
    ]);
    // Its asset (Gitea imports assets with releases): name and size as GitHub lists them, the bytes through the API's
    // asset list and the download URL it shows.
    const release = releases[0];
    const assets = await list(`/repos/bob/widgets/releases/${release.id as number}/assets`);
    expect(assets.map(({ name, size }) => ({ name, size }))).toEqual(github.data.releases[0].assets.map(({ name, size }) => ({ name, size })));
    expect(release.assets).toEqual(assets);
    const download = await fetch(assets[0].browser_download_url as string, { headers: fixture.as('bob') });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(github.assetBytes)).toBe(true);
  });

  it('read the source through its API with the token, every list page by page', async () => {
    const api = github.requests.filter((request) => request.server === 'api' && request.path.startsWith('/api/v3/'));
    expect(new Set(api.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    const issuePages = api.filter((request) => request.path === '/api/v3/repos/octo-org/widgets/issues').map((request) => request.query.get('page'));
    expect(issuePages).toEqual(['1', '2', '3', '4']);
    const status = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/bob/widgets/migration`, { headers: fixture.as('bob') });
    expect(await status.json()).toMatchObject({ status: 4, message: '' });
  });

  it('imports pull requests: states, merged fields, heads (a fork’s branch fetched), authors, comments and diffs', async () => {
    const pulls = new Map((await list('/repos/bob/widgets/pulls?state=all&limit=50')).map((pull) => [pull.number as number, pull]));
    expect([...pulls.keys()].sort()).toEqual(github.data.pulls.map((pull) => pull.number));
    for (const source of github.data.pulls) {
      const pull = pulls.get(source.number) as Json;
      expect({
        number: source.number,
        title: pull.title,
        body: pull.body,
        state: pull.state,
        merged: pull.merged,
        merged_at: time(pull.merged_at),
        merge_commit_sha: pull.merge_commit_sha,
        base: (pull.base as Json).ref,
        base_sha: (pull.base as Json).sha,
        head_sha: (pull.head as Json).sha,
        created_at: time(pull.created_at),
        closed_at: time(pull.closed_at),
      }).toEqual({
        number: source.number,
        title: source.title,
        body: source.body ?? '',
        state: source.state,
        merged: source.merged_at !== null,
        merged_at: time(source.merged_at),
        merge_commit_sha: source.merge_commit_sha,
        base: source.base.ref,
        // The base branch's tip in the copy (main has not moved).
        base_sha: github.shas.widget,
        head_sha: source.head.sha,
        created_at: time(source.created_at),
        closed_at: time(source.closed_at),
      });
    }
    // A same-repository head keeps its branch name, and one whose branch is gone (#5's add-widget) shows its
    // refs/pull ref, as the source's own copy would; the fork's branch was fetched as <owner>/<ref> (Gitea's naming).
    expect([4, 5, 7].map((n) => (pulls.get(n)?.head as Json).ref)).toEqual(['feature', 'refs/pull/5/head', 'hubot/hubot-fix']);
    const branch = await call('GET', '/repos/bob/widgets/branches/hubot%2Fhubot-fix', fixture.as('bob'));
    expect([branch.status, ((branch.body as Json).commit as Json | undefined)?.id]).toEqual([200, github.shas.fork]);
    expect(github.requests.some((request) => request.path === '/hubot/widgets.git/info/refs')).toBe(true);
    // refs/pull/<n>/head exists where the head commit is here (every one here), as the copy's git serves it.
    const bob = fixture.as('bob');
    const pullRefs = await git('-c', `http.extraHeader=Authorization: ${bob.authorization}`, 'ls-remote', `${fixture.instance.httpUrl}/bob/widgets.git`, 'refs/pull/*');
    expect(pullRefs.trim().split('\n').sort()).toEqual([4, 5, 7].map((n) => `${(pulls.get(n)?.head as Json).sha as string}\trefs/pull/${n}/head`).sort());
    // Authors: hubot and monalisa have no local account (original authors); #5 is octocat's (matched by e-mail).
    const authors: unknown[][] = [];
    for (const n of [4, 5, 7]) {
      const issue = (await call('GET', `/repos/bob/widgets/issues/${n}`, fixture.as('bob'))).body;
      authors.push([loginOf(pulls.get(n)?.user), issue.original_author]);
    }
    expect(authors).toEqual([
      ['bob', 'hubot'],
      ['octocat', ''],
      ['bob', 'hubot'],
    ]);
    // The pull requests' comments, with their authors.
    expect((await list('/repos/bob/widgets/issues/4/comments')).map((c) => [c.body, loginOf(c.user), c.original_author])).toEqual([['Looks good', 'bob', 'monalisa']]);
    expect((await list('/repos/bob/widgets/issues/7/comments')).map((c) => [c.body, loginOf(c.user), c.original_author])).toEqual([['Green it is', 'octocat', '']]);

    // Each imported pull request's diff is its head's against its base in the fixture's git data.
    const mirror = mkdtempSync(path.join(tmpdir(), 'cairn-github-e2e-'));
    try {
      await git('clone', '-q', '--mirror', github.cloneAddr, mirror);
      for (const source of github.data.pulls) {
        const expected = await git('--git-dir', mirror, 'diff', '-M', source.base.sha, source.head.sha);
        const diff = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/bob/widgets/pulls/${source.number}.diff`, { headers: fixture.as('bob') });
        expect([source.number, diff.status, await diff.text()]).toEqual([source.number, 200, expected]);
      }
    } finally {
      rmSync(mirror, { recursive: true, force: true });
    }
  });

  it('imports the reviews of #4 with GitHub’s states, the review comment, and the review request', async () => {
    const reviews = await list('/repos/bob/widgets/pulls/4/reviews');
    expect(reviews.map((review) => ({ user: loginOf(review.user), state: review.state, body: review.body, commit_id: review.commit_id, submitted_at: time(review.submitted_at), comments_count: review.comments_count }))).toEqual([
      { user: 'bob', state: 'APPROVED', body: 'Ship it', commit_id: github.shas.feature, submitted_at: time('2024-02-04T15:00:00Z'), comments_count: 1 },
      { user: 'bob', state: 'REQUEST_CHANGES', body: 'Not blue enough', commit_id: github.shas.feature, submitted_at: time('2024-02-04T16:00:00Z'), comments_count: 0 },
      { user: 'octocat', state: 'REQUEST_REVIEW', body: '', commit_id: '', submitted_at: expect.anything(), comments_count: 0 },
    ]);
    const code = await list(`/repos/bob/widgets/pulls/4/reviews/${reviews[0].id as number}/comments`);
    expect(code.map(({ path: file, body, position, commit_id }) => ({ path: file, body, position, commit_id }))).toEqual([{ path: 'widget.txt', body: 'Nice colour', position: 1, commit_id: github.shas.feature }]);
    expect(await list('/repos/bob/widgets/pulls/5/reviews')).toEqual([]);
  });
});

describe('POST /repos/migrate from GitHub under the default host policy', () => {
  it('refuses the loopback GitHub with 422 without connecting to it', async () => {
    const github = await startGithubFixture({ token: TOKEN });
    const fixture = await startFixture('e2e_migrate_github_refused', ['bob']);
    try {
      const refused = await fixture.api.request<Json>('POST', '/api/v1/repos/migrate', {
        headers: fixture.as('bob'),
        body: { clone_addr: github.cloneAddr, repo_name: 'widgets', service: 'github', auth_token: TOKEN, issues: true, labels: true },
      });
      expect(refused).toMatchObject({ status: 422, body: { message: 'You can not import from disallowed hosts.' } });
      expect(github.connections()).toBe(0);
      expect((await fixture.api.request('GET', '/api/v1/repos/bob/widgets', { headers: fixture.as('bob') })).status).toBe(404);
    } finally {
      await fixture.stop();
      await github.close();
    }
  });
});
