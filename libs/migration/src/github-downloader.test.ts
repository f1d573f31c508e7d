/** The github downloader against a loopback GitHub stand-in (@cairn/testing github-fixture.ts): every getter, paging, rate limits, auth. */
import { OutboundRefusedError, migrationPolicy } from '@cairn/outbound';
import { type GithubFixture, type GithubFixtureOptions, startGithubFixture } from '@cairn/testing';
import type { Downloader } from './base';
import { createGithubDownloader, parseGithubCloneAddr } from './github-downloader';
import { readLimited, MigrationSourceError } from './source-http';

const loopback = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });
const noAuth = { username: '', password: '', token: '' };
const TOKEN = 'ghp_fixtureToken123';
const fixtures: GithubFixture[] = [];

async function serve(options: GithubFixtureOptions = {}): Promise<GithubFixture> {
  const fixture = await startGithubFixture({ token: TOKEN, ...options });
  fixtures.push(fixture);
  return fixture;
}

const connect = (fixture: GithubFixture): Promise<Downloader> => createGithubDownloader({ cloneAddr: `${fixture.cloneAddr}.git`, auth: { ...noAuth, token: TOKEN }, policy: loopback });
const apiRequests = (fixture: GithubFixture, suffix: string) => fixture.requests.filter((request) => request.server === 'api' && request.path === `/api/v3/repos/octo-org/widgets${suffix}`);

afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

describe('parseGithubCloneAddr', () => {
  it('reads api.github.com for github.com and <host>/api/v3 for GitHub Enterprise (Gitea’s addClient)', () => {
    expect(parseGithubCloneAddr('https://github.com/go-gitea/gitea.git')).toEqual({ apiUrl: 'https://api.github.com', owner: 'go-gitea', repo: 'gitea' });
    expect(parseGithubCloneAddr('https://u:p@ghe.example:8443/org/tools/')).toEqual({ apiUrl: 'https://ghe.example:8443/api/v3', owner: 'org', repo: 'tools' });
    expect(parseGithubCloneAddr('http://github.com/a/b')).toEqual({ apiUrl: 'http://github.com/api/v3', owner: 'a', repo: 'b' });
    expect(() => parseGithubCloneAddr('https://github.com/lonely')).toThrow('invalid path: lonely');
  });
});

describe('createGithubDownloader', () => {
  it('maps the repository, topics, milestones, labels and releases, every list through its Link pages', async () => {
    const fixture = await serve();
    const source = await connect(fixture);
    expect(await source.getRepoInfo()).toEqual({
      name: 'widgets',
      owner: 'octo-org',
      isPrivate: false,
      isMirror: false,
      description: 'Widgets, in every colour',
      cloneUrl: `${fixture.cloneAddr}.git`,
      originalUrl: fixture.cloneAddr,
      defaultBranch: 'main',
    });
    expect(await source.getTopics()).toEqual(['widgets', 'colour']);
    expect(await source.getMilestones()).toEqual([
      { title: 'v1.0', description: 'First release', deadline: new Date('2030-01-01T08:00:00Z'), created: new Date('2024-01-02T10:00:00Z'), updated: new Date('2024-01-03T10:00:00Z'), closed: undefined, state: 'open' },
      { title: 'v0.9', description: '', deadline: undefined, created: new Date('2023-11-01T09:00:00Z'), updated: new Date('2023-12-01T09:00:00Z'), closed: new Date('2023-12-01T09:00:00Z'), state: 'closed' },
      { title: 'v2.0', description: 'Green widgets', deadline: undefined, created: new Date('2024-01-04T10:00:00Z'), updated: new Date('2024-01-03T10:00:00Z'), closed: undefined, state: 'open' },
    ]);
    expect(await source.getLabels()).toEqual([
      { name: 'bug', color: 'd73a4a', description: "Something isn't working", exclusive: false },
      { name: 'enhancement', color: 'a2eeef', description: 'New feature or request', exclusive: false },
      { name: 'good first issue', color: '7057ff', description: 'Good for newcomers', exclusive: false },
    ]);
    expect(await source.getReleases()).toEqual([
      {
        tagName: 'v1.0.0',
        targetCommitish: 'main',
        name: 'Widgets 1.0',
        body: 'The first widgets.',
        draft: false,
        prerelease: false,
        publisherId: 583231,
        publisherName: 'octocat',
        publisherEmail: 'octocat@example.com',
        assets: [
          {
            id: 7001,
            name: 'widgets-1.0.0.tar.gz',
            contentType: 'application/gzip',
            size: fixture.assetBytes.length,
            downloadCount: 42,
            created: new Date('2024-01-02T12:30:00Z'),
            updated: new Date('2024-01-02T12:31:00Z'),
            downloadUrl: `${fixture.cloneAddr}/releases/download/v1.0.0/widgets-1.0.0.tar.gz`,
          },
        ],
        created: new Date('2024-01-02T12:00:00Z'),
        published: new Date('2024-01-02T13:00:00Z'),
      },
    ]);
    // Two per page: milestones and labels took two pages each, asked with GitHub's page/per_page and state=all.
    expect(apiRequests(fixture, '/milestones').map((request) => Object.fromEntries(request.query))).toEqual([
      { state: 'all', per_page: '100', page: '1' },
      { state: 'all', per_page: '100', page: '2' },
    ]);
    expect(apiRequests(fixture, '/labels')).toHaveLength(2);
    // The token on every request (as Gitea's oauth2 transport sends it), GitHub's v3 media type, the topics preview.
    const api = fixture.requests.filter((request) => request.server === 'api');
    expect(new Set(api.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(apiRequests(fixture, '/topics').map((request) => request.accept)).toEqual(['application/vnd.github.mercy-preview+json']);
    expect(apiRequests(fixture, '/labels').map((request) => request.accept)).toEqual(['application/vnd.github.v3+json', 'application/vnd.github.v3+json']);
  });

  it('pages issues without the pull requests GitHub lists among them, with reactions and deleted users as ghost', async () => {
    const fixture = await serve();
    const source = await connect(fixture);
    const pages = [await source.getIssues(1, 50), await source.getIssues(2, 50), await source.getIssues(3, 50), await source.getIssues(4, 50)];
    // Pull requests #4, #5 and #7 are listed among the issues and left out of them.
    expect(pages.map((page) => [page.items.map((issue) => issue.number), page.isEnd])).toEqual([
      [[1, 2], false],
      [[3], false],
      [[6], false],
      [[], true],
    ]);
    expect(pages[0].items[0]).toEqual({
      number: 1,
      posterId: 583231,
      posterName: 'octocat',
      posterEmail: 'octocat@example.com',
      title: 'Widgets crash on start',
      content: 'They crash.',
      ref: '',
      milestone: 'v1.0',
      state: 'open',
      isLocked: false,
      created: new Date('2024-02-01T10:00:00Z'),
      updated: new Date('2024-02-01T11:00:00Z'),
      closed: undefined,
      labels: [{ name: 'bug', color: 'd73a4a', description: "Something isn't working", exclusive: false }],
      // Three reactions over two pages.
      reactions: [
        { userId: 480938, userName: 'hubot', content: '+1' },
        { userId: 2, userName: 'monalisa', content: 'heart' },
        { userId: 583231, userName: 'octocat', content: 'hooray' },
      ],
      assignees: ['hubot'],
      foreignIndex: 1,
    });
    expect(pages[0].items[1]).toMatchObject({
      posterName: 'monalisa',
      posterEmail: '',
      state: 'closed',
      isLocked: true,
      milestone: 'v0.9',
      closed: new Date('2024-02-05T10:00:00Z'),
      labels: [expect.objectContaining({ name: 'bug' }), expect.objectContaining({ name: 'good first issue' })],
      reactions: [],
    });
    // A deleted author (null) is GitHub's ghost, its reaction too.
    expect(pages[1].items[0]).toMatchObject({ posterId: 10137, posterName: 'ghost', content: '', reactions: [{ userId: 10137, userName: 'ghost', content: 'eyes' }] });
    expect(pages[2].items[0]).toMatchObject({ posterName: 'hubot', milestone: 'v2.0', reactions: [{ userId: 583231, userName: 'octocat', content: 'rocket' }] });
    expect(apiRequests(fixture, '/issues').map((request) => Object.fromEntries(request.query))).toEqual(
      [1, 2, 3, 4].map((page) => ({ state: 'all', sort: 'created', direction: 'asc', per_page: '50', page: String(page) })),
    );
    // Issue 2's roll-up counts no reaction: not asked for.
    expect(apiRequests(fixture, '/issues/2/reactions')).toHaveLength(0);
    expect(apiRequests(fixture, '/issues/1/reactions')).toHaveLength(2);
  });

  it('reads each issue’s comments through their pages, with their reactions', async () => {
    const fixture = await serve();
    const source = await connect(fixture);
    expect(await source.getComments(1)).toEqual([
      {
        issueIndex: 1,
        index: 1001,
        commentType: '',
        posterId: 480938,
        posterName: 'hubot',
        posterEmail: '',
        created: new Date('2024-02-01T13:00:00Z'),
        updated: new Date('2024-02-01T13:00:00Z'),
        content: 'Me too',
        reactions: [{ userId: 583231, userName: 'octocat', content: 'laugh' }],
      },
      expect.objectContaining({ index: 1002, posterName: 'octocat', posterEmail: 'octocat@example.com', content: 'Fixed soon', reactions: [] }),
      expect.objectContaining({ index: 1003, posterName: 'monalisa', content: 'Thanks!' }),
    ]);
    expect(await source.getComments(3)).toEqual([expect.objectContaining({ index: 1005, posterId: 10137, posterName: 'ghost', content: 'I was here first' })]);
    expect(await source.getComments(6)).toEqual([]);
    expect(apiRequests(fixture, '/issues/1/comments').map((request) => request.query.get('page'))).toEqual(['1', '2']);
    expect(apiRequests(fixture, '/issues/1/comments')[0].query.get('sort')).toBe('created');
    expect(apiRequests(fixture, '/issues/comments/1002/reactions')).toHaveLength(0);
  });

  it('maps pull requests, their patch and their reviews (requested reviewers included)', async () => {
    const fixture = await serve();
    const source = await connect(fixture);
    const { items, isEnd } = await source.getPullRequests(1, 50);
    expect(isEnd).toBe(false);
    const repoUrl = `${fixture.cloneAddr}.git`;
    expect(items[0]).toEqual({
      number: 4,
      title: 'Blue widgets',
      posterName: 'hubot',
      posterId: 480938,
      posterEmail: '',
      content: 'Body of 4',
      milestone: '',
      state: 'open',
      created: new Date('2024-02-04T10:00:00Z'),
      updated: new Date('2024-02-04T11:00:00Z'),
      closed: undefined,
      labels: [{ name: 'enhancement', color: 'a2eeef', description: 'New feature or request', exclusive: false }],
      patchUrl: `${fixture.cloneAddr}/pull/4.patch`,
      merged: false,
      mergedTime: undefined,
      mergeCommitSha: '',
      head: { cloneUrl: repoUrl, ref: 'feature', sha: fixture.shas.feature, repoName: 'widgets', ownerName: 'octo-org' },
      base: { cloneUrl: '', ref: 'main', sha: fixture.shas.widget, repoName: 'widgets', ownerName: 'octo-org' },
      assignees: [],
      isLocked: false,
      reactions: [{ userId: 2, userName: 'monalisa', content: 'rocket' }],
      foreignIndex: 4,
      isDraft: false,
    });
    expect(items[1]).toMatchObject({ number: 5, state: 'closed', merged: true, mergedTime: new Date('2024-02-05T12:00:00Z'), mergeCommitSha: fixture.shas.widget, closed: new Date('2024-02-05T12:00:00Z') });
    expect(apiRequests(fixture, '/pulls').map((request) => Object.fromEntries(request.query))).toEqual([{ state: 'all', sort: 'created', direction: 'asc', per_page: '50', page: '1' }]);
    // #7 is from hubot's fork: its head names the fork, whose clone URL the import fetches the branch from.
    const last = await source.getPullRequests(2, 50);
    expect([last.items.map((pull) => pull.number), last.isEnd]).toEqual([[7], true]);
    expect(last.items[0]).toMatchObject({
      state: 'open',
      head: { cloneUrl: `${fixture.url}/hubot/widgets.git`, ref: 'hubot-fix', sha: fixture.shas.fork, repoName: 'widgets', ownerName: 'hubot' },
      base: { ref: 'main', repoName: 'widgets', ownerName: 'octo-org' },
    });

    const patch = (await source.getPullPatch(items[0]))?.toString('utf8') ?? '';
    expect(patch).toContain(`From ${fixture.shas.feature} `);
    expect(patch).toContain('Subject: [PATCH] Blue widgets');
    // A pull request the source has no patch for (404) has none; the import goes on without it.
    expect(await source.getPullPatch({ ...items[0], number: 99, patchUrl: `${fixture.cloneAddr}/pull/99.patch` })).toBeUndefined();

    expect(await source.getReviews(4)).toEqual([
      {
        id: 8001,
        issueIndex: 4,
        reviewerId: 2,
        reviewerName: 'monalisa',
        official: false,
        commitId: fixture.shas.feature,
        content: 'Ship it',
        createdAt: new Date('2024-02-04T15:00:00Z'),
        state: 'APPROVED',
        comments: [
          {
            id: 9001,
            inReplyTo: 0,
            content: 'Nice colour',
            treePath: 'widget.txt',
            diffHunk: '@@ -1 +1 @@\n-a widget\n+a blue widget',
            position: 2,
            line: 1,
            commitId: fixture.shas.feature,
            posterId: 2,
            reactions: [{ userId: 480938, userName: 'hubot', content: 'heart' }],
            createdAt: new Date('2024-02-04T15:00:00Z'),
            updatedAt: new Date('2024-02-04T15:00:00Z'),
          },
        ],
      },
      expect.objectContaining({ id: 8002, reviewerId: 10137, reviewerName: 'ghost', state: 'CHANGES_REQUESTED', content: 'Not blue enough', comments: [] }),
      // GitHub gives a review request no id: one derived from the pull request and the user (review-ids.ts).
      expect.objectContaining({ id: 2 ** 52 + 4 * 2 ** 31 + 583231, reviewerId: 583231, reviewerName: 'octocat', state: 'REQUEST_REVIEW', comments: [] }),
    ]);
    expect(await source.getReviews(5)).toEqual([]);
  });

  it('downloads a release asset through the API with the token, never sending it on to the object store it redirects to', async () => {
    const fixture = await serve();
    const source = await connect(fixture);
    const [release] = await source.getReleases();
    const bytes = await readLimited(await source.openReleaseAsset(release.assets[0]), 1 << 20, 'asset');
    expect(bytes.equals(fixture.assetBytes)).toBe(true);
    expect(apiRequests(fixture, '/releases/assets/7001').map((request) => [request.accept, request.authorization])).toEqual([['application/octet-stream', `Bearer ${TOKEN}`]]);
    const store = fixture.requests.filter((request) => request.server === 'objects');
    expect(store.map((request) => [request.path, request.authorization])).toEqual([['/github-production-release-asset/7001', undefined]]);
  });

  it('waits out a spent quota (403), a Retry-After (429) and a quota a successful answer used up', async () => {
    const fixture = await serve({
      rateLimited: {
        '/api/v3/repos/octo-org/widgets/labels': 'quota',
        '/api/v3/repos/octo-org/widgets/milestones': 'retry-after',
        '/api/v3/repos/octo-org/widgets': 'exhausted',
      },
    });
    const source = await connect(fixture);
    expect((await source.getRepoInfo()).name).toBe('widgets');
    // The answer was whole but the quota spent: the next request waits for the reset.
    expect(await source.getTopics()).toEqual(['widgets', 'colour']);
    expect((await source.getLabels()).map((label) => label.name)).toEqual(['bug', 'enhancement', 'good first issue']);
    expect((await source.getMilestones()).map((milestone) => milestone.title)).toEqual(['v1.0', 'v0.9', 'v2.0']);
    // Each request after a limit came once the limit said so (the server's clock; 50 ms for timer rounding).
    const after = (limitedPath: string, suffix: string) => {
      const limit = fixture.limited.get(`/api/v3/repos/octo-org/widgets${limitedPath}`);
      const next = apiRequests(fixture, suffix).find((request) => request.at > (limit?.answeredAt ?? Infinity));
      return [limit !== undefined, next !== undefined && limit !== undefined && next.at >= limit.until - 50];
    };
    expect(after('', '/topics')).toEqual([true, true]);
    expect(after('/labels', '/labels')).toEqual([true, true]);
    expect(after('/milestones', '/milestones')).toEqual([true, true]);
    // The limited request was asked again: labels 1 refused + 2 pages, milestones 1 refused + 2 pages.
    expect(apiRequests(fixture, '/labels')).toHaveLength(3);
    expect(apiRequests(fixture, '/milestones')).toHaveLength(3);
  });

  it('sends basic auth without a token, and fails with GitHub’s message, never the credentials', async () => {
    const fixture = await serve();
    const source = await createGithubDownloader({ cloneAddr: fixture.cloneAddr, auth: { username: 'octocat', password: 'hunter2-pa55', token: '' }, policy: loopback });
    const error: unknown = await source.getRepoInfo().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MigrationSourceError);
    expect((error as MigrationSourceError).status).toBe(401);
    expect((error as Error).message).toBe('GET /repos/octo-org/widgets: the source answered 401: Bad credentials');
    expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).not.toMatch(/hunter2/);
    expect(fixture.requests.map((request) => request.authorization)).toEqual([`Basic ${Buffer.from('octocat:hunter2-pa55').toString('base64')}`]);

    // Anonymous reads send no Authorization at all (a public repository).
    const open = await serve({ token: undefined });
    const anonymous = await createGithubDownloader({ cloneAddr: open.cloneAddr, auth: noAuth, policy: loopback });
    expect((await anonymous.getRepoInfo()).name).toBe('widgets');
    expect(open.requests.map((request) => request.authorization)).toEqual([undefined]);
  });

  it('never contacts a host the policy refuses (default [migrations]: no loopback)', async () => {
    const fixture = await serve();
    const policy = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: false });
    const source = await createGithubDownloader({ cloneAddr: fixture.cloneAddr, auth: { ...noAuth, token: TOKEN }, policy });
    await expect(source.getRepoInfo()).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(source.getIssues(1, 50)).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(fixture.connections()).toBe(0);
  });
});
