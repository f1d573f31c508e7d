/** The gitlab downloader against a loopback server answering as GitLab's API v4 (@cairn/testing gitlab-fixture). */
import { OutboundRefusedError, migrationPolicy } from '@cairn/outbound';
import { GITLAB_OAUTH_TOKEN, GITLAB_TOKEN, type GitlabFixture, type GitlabFixtureOptions, startGitlabFixture } from '@cairn/testing';
import { awardsToReactions, createGitlabDownloader, normalizeColor, targetBranchChange } from './gitlab-downloader';
import { readLimited } from './source-http';

const loopback = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });
const tokenAuth = { username: '', password: '', token: GITLAB_TOKEN };
const fixtures: GitlabFixture[] = [];

async function serve(options?: GitlabFixtureOptions): Promise<GitlabFixture> {
  const fixture = await startGitlabFixture(options);
  fixtures.push(fixture);
  return fixture;
}

afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

const at = (fixture: GitlabFixture, path: string) => fixture.requests.filter((request) => request.path === path);

describe('gitlab helpers', () => {
  it('normalizes colors as gitlab.go normalizeColor', () => {
    expect(['#D9534F', '#f00', 'ABC', '#12345', 'red'].map(normalizeColor)).toEqual(['d9534f', 'ff0000', 'aabbcc', '', '']);
  });

  it('maps award emoji to Gitea’s reactions, each user’s kind once', () => {
    const user = (id: number, username: string) => ({ id, username, email: '' });
    expect(
      awardsToReactions([
        { name: 'thumbsup', user: user(1, 'a') },
        { name: 'thumbsdown', user: user(1, 'a') },
        { name: 'laughing', user: user(2, 'b') },
        { name: 'smile', user: user(2, 'b') },
        { name: 'smile', user: user(1, 'a') },
        { name: 'tada', user: user(1, 'a') },
        { name: 'coffee', user: user(2, 'b') },
      ]),
    ).toEqual([
      { userId: 1, userName: 'a', content: '+1' },
      { userId: 1, userName: 'a', content: '-1' },
      { userId: 2, userName: 'b', content: 'laugh' },
      { userId: 1, userName: 'a', content: 'laugh' },
      { userId: 1, userName: 'a', content: 'hooray' },
      { userId: 2, userName: 'b', content: 'coffee' },
    ]);
  });
});

describe('createGitlabDownloader', () => {
  it('reads the project, topics, milestones, labels and releases, every list page by page, with PRIVATE-TOKEN', async () => {
    const fixture = await serve();
    const source = await createGitlabDownloader({ cloneAddr: `${fixture.projectUrl}.git`, auth: tokenAuth, policy: loopback });
    expect(await source.getRepoInfo()).toEqual({
      name: 'tools',
      owner: 'alice',
      isPrivate: false,
      isMirror: false,
      description: 'Handy tools',
      cloneUrl: `${fixture.projectUrl}.git`,
      originalUrl: fixture.projectUrl,
      defaultBranch: 'main',
    });
    expect(await source.getTopics()).toEqual(['cli', 'tools']);
    expect(await source.getMilestones()).toEqual([
      {
        title: 'v1.0',
        description: 'First release',
        deadline: new Date('2024-06-30T00:00:00Z'),
        created: new Date('2024-01-02T10:00:00Z'),
        updated: new Date('2024-01-03T10:00:00Z'),
        closed: undefined,
        state: 'open',
      },
      {
        title: 'v0.9',
        description: '',
        deadline: undefined,
        created: new Date('2023-11-01T08:00:00Z'),
        updated: new Date('2023-12-01T08:00:00Z'),
        closed: new Date('2023-12-01T08:00:00Z'),
        state: 'closed',
      },
    ]);
    expect(await source.getLabels()).toEqual([
      { name: 'bug', color: 'd9534f', description: 'Something is broken', exclusive: false },
      { name: 'priority::high', color: 'ff0000', description: '', exclusive: true },
      { name: 'priority::low', color: '00ff00', description: 'Later', exclusive: true },
    ]);
    const releases = await source.getReleases();
    expect(releases).toEqual([
      {
        tagName: 'v1.0.0',
        targetCommitish: fixture.commits.second,
        name: 'Version 1',
        body: 'Notes for 1.0',
        draft: false,
        prerelease: false,
        publisherId: 3,
        publisherName: 'carol',
        publisherEmail: '',
        assets: [
          {
            id: 61,
            name: 'tools.tar.gz',
            size: 0,
            downloadCount: 0,
            created: new Date('2024-03-01T12:00:00Z'),
            updated: new Date('2024-03-01T12:00:00Z'),
            downloadUrl: `${fixture.projectUrl}/-/releases/v1.0.0/downloads/tools.tar.gz`,
          },
        ],
        created: new Date('2024-03-01T12:00:00Z'),
        published: new Date('2024-03-02T12:00:00Z'),
      },
      expect.objectContaining({ tagName: 'v0.9.0', targetCommitish: fixture.commits.initial, publisherName: 'alice', assets: [] }),
    ]);
    expect(await readLimited(await source.openReleaseAsset(releases[0].assets[0]), 1 << 20, 'asset')).toEqual(fixture.asset);

    // The version, the project by its path, then by its id; labels over two pages of 2 (X-Next-Page).
    expect(fixture.requests.slice(0, 2).map((request) => request.path)).toEqual(['/api/v4/version', '/api/v4/projects/alice%2Ftools']);
    expect(at(fixture, '/api/v4/projects/42/labels').map((request) => request.query.get('page'))).toEqual(['1', '2']);
    expect(at(fixture, '/api/v4/projects/42/releases').map((request) => request.query.get('page'))).toEqual(['1']);
    expect(new Set(fixture.requests.map((request) => request.privateToken))).toEqual(new Set([GITLAB_TOKEN]));
  });

  it('pages issues oldest first with their award emoji; confidential issues stay behind', async () => {
    const fixture = await serve();
    const source = await createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: tokenAuth, policy: loopback });
    const pages = [await source.getIssues(1, 50), await source.getIssues(2, 50), await source.getIssues(3, 50)];
    expect(pages.map((page) => [page.items.map((issue) => issue.number), page.isEnd])).toEqual([
      [[1, 2], false],
      [[3, 5], false],
      [[], true],
    ]);
    expect(pages[0].items[0]).toEqual({
      number: 1,
      posterId: 1,
      posterName: 'alice',
      posterEmail: '',
      title: 'Issue 1',
      content: 'Body of 1',
      ref: '',
      milestone: 'v1.0',
      state: 'open',
      isLocked: false,
      created: new Date('2024-02-01T08:00:00Z'),
      updated: new Date('2024-02-01T09:00:00Z'),
      closed: undefined,
      labels: [{ name: 'bug', color: '', description: '', exclusive: false }],
      // thumbsup → +1, tada → hooray, laughing and smile (one user) → one laugh; names without a match stay.
      reactions: [
        { userId: 2, userName: 'bob', content: '+1' },
        { userId: 3, userName: 'carol', content: 'hooray' },
        { userId: 2, userName: 'bob', content: 'laugh' },
        { userId: 1, userName: 'alice', content: 'coffee' },
      ],
      assignees: ['bob', 'carol'],
      foreignIndex: 1,
    });
    expect(pages[0].items[1]).toMatchObject({
      number: 2,
      posterName: 'carol',
      state: 'closed',
      isLocked: true,
      milestone: 'v0.9',
      closed: new Date('2024-02-05T10:00:00Z'),
      labels: [{ name: 'priority::high' }],
      reactions: [],
    });
    expect(at(fixture, '/api/v4/projects/42/issues').map((request) => Object.fromEntries(request.query))).toEqual(
      [1, 2, 3].map((page) => ({ state: 'all', sort: 'asc', page: String(page), per_page: '50' })),
    );
    // Nothing of the confidential issue is read beyond the list.
    expect(fixture.requests.some((request) => request.path.includes('/issues/6'))).toBe(false);
  });

  it('flattens discussions into comments with their reactions; internal notes stay behind, state events are comments', async () => {
    const fixture = await serve();
    const source = await createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: tokenAuth, policy: loopback });
    await source.getIssues(1, 50);
    const comments = await source.getComments(1);
    expect(comments.map((comment) => [comment.index, comment.commentType, comment.posterName, comment.content])).toEqual([
      [501, '', 'bob', 'Me too'],
      [502, '', 'carol', 'Which version?'],
      [503, '', 'alice', 'v1.0'],
      // A system note Gitea has no type for is kept as a plain comment (gitlab.go convertNoteToComment).
      [505, '', 'alice', 'changed the description'],
    ]);
    expect(comments[0]).toEqual({
      issueIndex: 1,
      index: 501,
      commentType: '',
      posterId: 2,
      posterName: 'bob',
      posterEmail: '',
      created: new Date('2024-02-01T10:00:00Z'),
      updated: new Date('2024-02-01T10:00:00Z'),
      content: 'Me too',
      reactions: [{ userId: 1, userName: 'alice', content: '-1' }],
    });
    expect(comments[1].reactions).toEqual([
      { userId: 2, userName: 'bob', content: 'heart' },
      { userId: 1, userName: 'alice', content: 'eyes' },
    ]);
    // Two pages of discussions; the internal note's award emoji are never asked for.
    expect(at(fixture, '/api/v4/projects/42/issues/1/discussions').map((request) => request.query.get('page'))).toEqual(['1', '2']);
    expect(fixture.requests.some((request) => request.path.includes('/notes/504'))).toBe(false);

    expect((await source.getComments(2)).map((comment) => [comment.index, comment.commentType, comment.posterName, comment.content])).toEqual([
      [506, '', 'carol', 'Fixed in main'],
      [801, 'close', 'alice', ''],
    ]);
  });

  it('numbers merge requests after the largest issue number and reads their comments, approvals and patches', async () => {
    const fixture = await serve();
    const source = await createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: tokenAuth, policy: loopback });
    for (let page = 1; !(await source.getIssues(page, 50)).isEnd; page++);
    const first = await source.getPullRequests(1, 50);
    // Issue 6 is confidential, yet its number is taken: merge request !1 is #7.
    expect([first.items.map((pull) => pull.number), first.isEnd]).toEqual([[7, 8], false]);
    expect(first.items[0]).toEqual({
      number: 7,
      title: 'Merge request 1',
      posterName: 'bob',
      posterId: 2,
      posterEmail: '',
      content: 'Description of !1',
      milestone: 'v1.0',
      state: 'closed',
      created: new Date('2024-03-01T08:00:00Z'),
      updated: new Date('2024-03-01T09:00:00Z'),
      closed: new Date('2024-03-01T09:00:00Z'),
      labels: [{ name: 'bug', color: '', description: '', exclusive: false }],
      patchUrl: `${fixture.projectUrl}/-/merge_requests/1.patch`,
      merged: true,
      mergedTime: new Date('2024-03-02T10:00:00Z'),
      mergeCommitSha: fixture.commits.merge,
      // Head and base name the project (its namespace and URL name); the head's clone URL is where its branch is.
      head: { cloneUrl: `${fixture.projectUrl}.git`, ref: 'feature', sha: fixture.commits.feature, repoName: 'tools', ownerName: 'alice' },
      base: { cloneUrl: `${fixture.projectUrl}.git`, ref: 'main', sha: fixture.commits.initial, repoName: 'tools', ownerName: 'alice' },
      assignees: ['alice'],
      isLocked: false,
      reactions: [{ userId: 1, userName: 'alice', content: 'rocket' }],
      foreignIndex: 1,
      isDraft: false,
    });
    expect(first.items[1]).toMatchObject({ number: 8, state: 'open', merged: false, isDraft: true, head: { ref: 'wip', sha: fixture.commits.second } });
    expect(at(fixture, '/api/v4/projects/42/merge_requests')[0].query.get('view')).toBe('simple');
    // !3 comes from carol's fork (project 43): its head names the fork and its clone URL, read once.
    const second = await source.getPullRequests(2, 50);
    expect([second.items.map((pull) => pull.number), second.isEnd]).toEqual([[9], true]);
    expect(second.items[0]).toMatchObject({
      state: 'open',
      head: { cloneUrl: `${fixture.url}/carol/tools.git`, ref: 'carol-fix', sha: fixture.commits.fork, repoName: 'tools', ownerName: 'carol' },
      base: { ref: 'main', repoName: 'tools', ownerName: 'alice' },
    });
    expect(at(fixture, '/api/v4/projects/43')).toHaveLength(1);

    expect((await source.getComments(7)).map((comment) => [comment.issueIndex, comment.index, comment.commentType, comment.meta])).toEqual([
      [7, 701, '', undefined],
      [7, 702, 'change_target_branch', { OldRef: 'dev', NewRef: 'main' }],
      [7, 901, 'merge_pull', undefined],
    ]);
    expect(await source.getReviews(7)).toEqual([
      // Approvals have no id: one derived from the pull request and the approver (review-ids.ts).
      { id: 2 ** 52 + 7 * 2 ** 31 + 3, issueIndex: 7, reviewerId: 3, reviewerName: 'carol', official: false, commitId: '', content: '', createdAt: new Date('2024-03-01T08:00:00Z'), state: 'APPROVED', comments: [] },
    ]);
    // An edition without approvals answers 404: no reviews.
    expect(await source.getReviews(8)).toEqual([]);
    expect((await source.getPullPatch(first.items[0]))?.toString()).toContain('Subject: [PATCH] Add a feature');
    // The source has no patch for !2 (404): none, and the import goes on.
    expect(await source.getPullPatch(first.items[1])).toBeUndefined();
    expect(at(fixture, '/api/v4/projects/42/merge_requests/1/approvals')).toHaveLength(1);
  });

  it('a resumed migration (pull requests first) learns the largest issue number from the source', async () => {
    const fixture = await serve();
    const source = await createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: tokenAuth, policy: loopback });
    expect((await source.getPullRequests(1, 50)).items.map((pull) => pull.number)).toEqual([7, 8]);
    expect((await source.getComments(7)).map((comment) => comment.index)).toEqual([701, 702, 901]);
    expect((await source.getComments(1)).map((comment) => comment.index)).toEqual([501, 502, 503, 505]);
    // One walk over the issue numbers (three pages), not one per question.
    expect(at(fixture, '/api/v4/projects/42/issues')).toHaveLength(3);
  });

  it('finds a sub-path install, trades a password for an OAuth token, and waits out a 429 with Retry-After', async () => {
    const fixture = await serve({
      root: '/gitlab',
      before: { '/gitlab/api/v4/projects/42/labels': [{ status: 429, headers: { 'retry-after': '1' }, body: { message: '429 Too Many Requests' } }] },
    });
    const source = await createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: { username: 'alice', password: 'pw', token: '' }, policy: loopback });
    const started = Date.now();
    expect((await source.getLabels()).map((label) => label.name)).toEqual(['bug', 'priority::high', 'priority::low']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(at(fixture, '/gitlab/api/v4/projects/42/labels').map((request) => request.query.get('page'))).toEqual(['1', '1', '2']);
    // /api/v4/version at the root is not GitLab; under /gitlab it is (401 without credentials still counts).
    expect(fixture.requests.slice(0, 4).map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /api/v4/version',
      'GET /gitlab/api/v4/version',
      'POST /gitlab/oauth/token',
      'GET /gitlab/api/v4/projects/alice%2Ftools',
    ]);
    const api = fixture.requests.filter((request) => request.path.startsWith('/gitlab/api/v4/projects'));
    expect(api.every((request) => request.authorization === `Bearer ${GITLAB_OAUTH_TOKEN}` && request.privateToken === undefined)).toBe(true);
    await expect(createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: { username: 'alice', password: 'wrong', token: '' }, policy: loopback })).rejects.toThrow(
      'POST /oauth/token: the source answered 400: ',
    );
  });

  it('fails with the source’s message and never contacts a refused host', async () => {
    const fixture = await serve();
    await expect(createGitlabDownloader({ cloneAddr: `${fixture.url}/alice/missing`, auth: tokenAuth, policy: loopback })).rejects.toThrow(
      'GET /projects/alice%2Fmissing: the source answered 404: 404 Not found',
    );
    await expect(createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: { ...tokenAuth, token: 'wrong' }, policy: loopback })).rejects.toThrow('the source answered 401');
    const before = fixture.connections();
    const refusing = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: false });
    await expect(createGitlabDownloader({ cloneAddr: fixture.projectUrl, auth: tokenAuth, policy: refusing })).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(fixture.connections()).toBe(before);
  });
});

describe('targetBranchChange', () => {
  it("reads GitLab's target branch notes as Gitea's regular expression does, without one", () => {
    expect(targetBranchChange('changed target branch from `main` to `release/1.x`')).toEqual({ from: 'main', to: 'release/1.x' });
    // The first group is the shortest (Gitea's `(.*?)`), the second takes the rest up to the closing backtick.
    expect(targetBranchChange('changed target branch from `a` to `b` to `c`')).toEqual({ from: 'a', to: 'b` to `c' });
    expect(targetBranchChange('changed target branch from `` to ``')).toEqual({ from: '', to: '' });
    for (const other of ['changed target branch from `a` to `b', 'changed target branch from `a` to `b`\n', 'changed the description', 'changed target branch from `a`']) {
      expect(targetBranchChange(other)).toBeUndefined();
    }
    // A long note that almost matches is answered (a backtracking pattern would take quadratic time here).
    expect(targetBranchChange(`changed target branch from \`${'` to '.repeat(200_000)}x`)).toBeUndefined();
  });
});
