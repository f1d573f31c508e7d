/**
 * Imports from GitHub end to end (POST /repos/migrate, service github), against the GitHub stand-in of @cairn/testing
 * (github-fixture.ts: GitHub's API v3 under /api/v3 as GitHub Enterprise serves it, paged by 2 with Link headers, and
 * the repository's git data over smart HTTP): git branches and tags, topics, labels, milestones, issues (the pull
 * requests GitHub lists among them left out) with comments and reactions, and a release are compared through Cairn's
 * API with the fixture's answers. octocat shows its e-mail, which is a local user's: it becomes that user; hubot and
 * monalisa show none and are kept as original authors, a deleted account as GitHub's "ghost". On an instance with the
 * default host policy the same source is refused before anything connects to it.
 */
import { type GithubFixture, startGithubFixture } from '@cairn/testing';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

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
      // Not pull_requests yet: on this base their comments would be sent for pull requests never imported (PULLS).
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'bob/widgets', default_branch: 'main' })]);
  });

  afterAll(async () => {
    await fixture?.stop();
    await github?.close();
  });

  it('brings the git data: branches and tags at the source’s commits', async () => {
    const branches = await list('/repos/bob/widgets/branches');
    expect(branches.map((branch) => [branch.name, (branch.commit as Json).id]).sort()).toEqual([
      ['feature', github.shas.feature],
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
    // Release assets are not imported yet (runner.ts: releaseAssets false); once they are, compare
    // releases[0].assets with github.data.releases[0].assets (name, size) and the bytes with github.assetBytes here.
  });

  it('read the source through its API with the token, every list page by page', async () => {
    const api = github.requests.filter((request) => request.server === 'api' && request.path.startsWith('/api/v3/'));
    expect(new Set(api.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    const issuePages = api.filter((request) => request.path === '/api/v3/repos/octo-org/widgets/issues').map((request) => request.query.get('page'));
    expect(issuePages).toEqual(['1', '2', '3']);
    const status = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/bob/widgets/migration`, { headers: fixture.as('bob') });
    expect(await status.json()).toMatchObject({ status: 4, message: '' });
  });

  // PULLS imports pull requests and reviews in parallel (session 12); once they import, add `pull_requests: true` to
  // the import above and compare /repos/bob/widgets/pulls with github.data.pulls (#4 open feature→main with its patch,
  // #5 merged) and the reviews of #4 (monalisa APPROVED with a comment on widget.txt, ghost CHANGES_REQUESTED) here.
  it.todo('imports pull requests with their head refs, patches and reviews');
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
