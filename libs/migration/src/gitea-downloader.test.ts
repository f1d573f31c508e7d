/** The gitea downloader against a loopback server answering as Gitea's API v1 (test/gitea-fixtures.ts). */
import { OutboundRefusedError, migrationPolicy } from '@cairn/outbound';
import { type FixtureServer, startFixtureServer } from '../test/gitea-fixtures';
import { createGiteaDownloader, parseCloneAddr } from './gitea-downloader';
import type { PullRequest } from './base';
import { MigrationSourceError } from './source-http';

const loopback = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });
const noAuth = { username: '', password: '', token: '' };
const servers: FixtureServer[] = [];

async function serve(options?: Parameters<typeof startFixtureServer>[0]): Promise<FixtureServer> {
  const server = await startFixtureServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('parseCloneAddr', () => {
  it('strips .git and keeps a sub-path root URL (Gitea’s GiteaDownloaderFactory.New)', () => {
    expect(parseCloneAddr('http://git.example:3000/alice/tools.git')).toEqual({ baseUrl: 'http://git.example:3000', owner: 'alice', repo: 'tools' });
    expect(parseCloneAddr('https://u:p@git.example/forge/sub/alice/tools/')).toEqual({ baseUrl: 'https://git.example/forge/sub', owner: 'alice', repo: 'tools' });
    expect(() => parseCloneAddr('http://git.example/tools')).toThrow('invalid path: tools');
  });
});

describe('createGiteaDownloader', () => {
  it('maps the repository, topics, milestones, labels and releases field by field', async () => {
    const server = await serve();
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools.git`, auth: { ...noAuth, token: 'abc123' }, policy: loopback });
    expect(await source.getRepoInfo()).toEqual({
      name: 'tools',
      owner: 'alice',
      isPrivate: false,
      isMirror: false,
      description: 'Handy tools',
      cloneUrl: 'http://source.example/alice/tools.git',
      originalUrl: 'http://source.example/alice/tools',
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
      { name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false },
      { name: 'priority/high', color: 'b60205', description: '', exclusive: true },
    ]);
    expect(await source.getReleases()).toEqual([
      {
        tagName: 'v1.0.0',
        targetCommitish: 'main',
        name: 'Version 1',
        body: 'Notes',
        draft: false,
        prerelease: true,
        publisherId: 3,
        publisherName: 'carol',
        publisherEmail: 'carol@example.com',
        assets: [
          {
            id: 41,
            name: 'tools.tar.gz',
            size: 1234,
            downloadCount: 7,
            created: new Date('2024-03-01T12:30:00Z'),
            updated: new Date('2024-03-01T12:30:00Z'),
            downloadUrl: 'http://source.example/attachments/a1b2',
          },
        ],
        created: new Date('2024-03-01T12:00:00Z'),
        published: new Date('2024-03-02T12:00:00Z'),
      },
    ]);
    // The version first, as Gitea's SDK; the token on every request.
    expect(server.requests[0].path).toBe('/api/v1/version');
    expect(new Set(server.requests.map((request) => request.authorization))).toEqual(new Set(['token abc123']));
  });

  it('pages issues with their reactions, and maps comments with theirs and kept original authors', async () => {
    const server = await serve();
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools`, auth: { ...noAuth, username: 'alice', password: 'pw' }, policy: loopback });
    const first = await source.getIssues(1, 2);
    expect(first.isEnd).toBe(false);
    expect(first.items.map((issue) => issue.number)).toEqual([3, 2]);
    expect(first.items[0]).toEqual({
      number: 3,
      posterId: 1,
      posterName: 'alice',
      posterEmail: 'alice@example.com',
      title: 'Issue 3',
      content: 'Body of 3',
      ref: '',
      milestone: 'v1.0',
      state: 'open',
      isLocked: false,
      created: new Date('2024-02-03T08:00:00Z'),
      updated: new Date('2024-02-03T09:00:00Z'),
      closed: undefined,
      labels: [{ name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false }],
      reactions: [
        { userId: 2, userName: 'bob', content: '+1' },
        { userId: 3, userName: 'carol', content: 'heart' },
      ],
      assignees: ['bob', 'carol'],
      foreignIndex: 3,
    });
    expect(first.items[1]).toMatchObject({
      posterId: 2,
      posterName: 'bob',
      posterEmail: '',
      state: 'closed',
      isLocked: true,
      ref: 'refs/heads/fix',
      milestone: 'v0.9',
      closed: new Date('2024-02-05T10:00:00Z'),
      reactions: [],
      assignees: [],
    });
    const second = await source.getIssues(2, 2);
    expect(second.isEnd).toBe(true);
    expect(second.items).toEqual([expect.objectContaining({ number: 1, posterId: 9001, posterName: 'dora', posterEmail: '' })]);
    const listed = server.requests.filter((request) => request.path === '/api/v1/repos/alice/tools/issues');
    expect(listed.map((request) => Object.fromEntries(request.query))).toEqual([
      { state: 'all', type: 'issues', page: '1', limit: '2' },
      { state: 'all', type: 'issues', page: '2', limit: '2' },
    ]);

    expect(await source.getComments(3)).toEqual([
      {
        issueIndex: 3,
        index: 51,
        commentType: '',
        posterId: 2,
        posterName: 'bob',
        posterEmail: '',
        created: new Date('2024-02-03T12:00:00Z'),
        updated: new Date('2024-02-03T12:05:00Z'),
        content: 'Me too',
        reactions: [{ userId: 3, userName: 'carol', content: 'laugh' }],
      },
      expect.objectContaining({ index: 52, posterName: 'alice', content: 'Fixed soon', reactions: [] }),
    ]);
    expect(await source.getComments(1)).toEqual([expect.objectContaining({ index: 53, posterId: 77, posterName: 'erin', posterEmail: '' })]);
    expect(await source.getComments(2)).toEqual([]);
    expect(server.requests.every((request) => request.authorization === `Basic ${Buffer.from('alice:pw').toString('base64')}`)).toBe(true);
  });

  it('lists the repository’s comments page by page, each on its issue or pull request, with reactions', async () => {
    const server = await serve({ maxItems: 2 });
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools`, auth: noAuth, policy: loopback });
    if (source.getAllComments === undefined) throw new Error('a paging source lists comments repository-wide');
    const pages = [await source.getAllComments(1, 50), await source.getAllComments(2, 50)];
    expect(pages.map((page) => [page.items.map((item) => [item.comment.issueIndex, item.comment.index, item.onPullRequest]), page.isEnd])).toEqual([
      [
        [
          [1, 53, false],
          [3, 51, false],
        ],
        false,
      ],
      [
        [
          [3, 52, false],
          [4, 54, true],
        ],
        true,
      ],
    ]);
    expect(pages[0].items[1].comment).toEqual(expect.objectContaining({ posterName: 'bob', content: 'Me too', reactions: [{ userId: 3, userName: 'carol', content: 'laugh' }] }));
    const listed = server.requests.filter((request) => request.path === '/api/v1/repos/alice/tools/issues/comments');
    expect(listed.map((request) => [request.query.get('page'), request.query.get('limit')])).toEqual([
      ['1', '2'],
      ['2', '2'],
    ]);
  });

  it('follows the source’s page maximum through every page of a list', async () => {
    const server = await serve({ maxItems: 1, root: '/forge' });
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/forge/alice/tools.git`, auth: noAuth, policy: loopback });
    expect((await source.getMilestones()).map((milestone) => milestone.title)).toEqual(['v1.0', 'v0.9']);
    expect((await source.getLabels()).map((label) => label.name)).toEqual(['bug', 'priority/high']);
    // Asked for 50, answered 1 per page: the total says when it ends, not the short page.
    const pages = [await source.getIssues(1, 50), await source.getIssues(2, 50), await source.getIssues(3, 50)];
    expect(pages.map((page) => [page.items.map((issue) => issue.number), page.isEnd])).toEqual([
      [[3], false],
      [[2], false],
      [[1], true],
    ]);
    const milestones = server.requests.filter((request) => request.path === '/forge/api/v1/repos/alice/tools/milestones');
    expect(milestones.map((request) => request.query.get('page'))).toEqual(['1', '2']);
  });

  it('waits out a 429 with Retry-After and retries', async () => {
    const server = await serve({
      before: { '/api/v1/repos/alice/tools/topics': [{ status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } }] },
    });
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools`, auth: noAuth, policy: loopback });
    const started = Date.now();
    expect(await source.getTopics()).toEqual(['cli', 'tools']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(server.requests.filter((request) => request.path.endsWith('/topics'))).toHaveLength(2);
  });

  it('keeps a page’s reactions in the issues’ order when one is waited out, and fails the page when one fails', async () => {
    const limited = await serve({
      before: { '/api/v1/repos/alice/tools/issues/3/reactions': [{ status: 429, headers: { 'retry-after': '0' }, body: { message: 'slow down' } }] },
    });
    const source = await createGiteaDownloader({ cloneAddr: `${limited.url}/alice/tools`, auth: noAuth, policy: loopback });
    const page = await source.getIssues(1, 3);
    expect(page.items.map((issue) => [issue.number, issue.reactions.map((reaction) => reaction.content)])).toEqual([
      [3, ['+1', 'heart']],
      [2, []],
      [1, []],
    ]);
    expect(limited.requests.filter((request) => request.path.endsWith('/issues/3/reactions'))).toHaveLength(2);

    const failing = await serve({ before: { '/api/v1/repos/alice/tools/issues/2/reactions': [{ status: 500, body: { message: 'database is down' } }] } });
    const broken = await createGiteaDownloader({ cloneAddr: `${failing.url}/alice/tools`, auth: noAuth, policy: loopback });
    await expect(broken.getIssues(1, 3)).rejects.toThrow('GET /repos/alice/tools/issues/2/reactions: the source answered 500: database is down');
  });

  it('never contacts a host the policy refuses (default [migrations]: no loopback)', async () => {
    const server = await serve();
    const policy = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: false });
    await expect(createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools`, auth: noAuth, policy })).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(createGiteaDownloader({ cloneAddr: `${server.url.replace('127.0.0.1', 'localhost')}/alice/tools`, auth: noAuth, policy })).rejects.toThrow(
      /migrations can only call allowed HTTP servers/,
    );
    expect(server.connections()).toBe(0);
  });

  it('fails with the status and the source’s message, never the credentials', async () => {
    const server = await serve({ before: { '/api/v1/repos/alice/tools': [{ status: 401, body: { message: 'token is required' } }] } });
    const cloneAddr = `${server.url.replace('http://', 'http://alice:hunter2@')}/alice/tools`;
    const source = await createGiteaDownloader({ cloneAddr, auth: { username: 'alice', password: 'pa55w0rd', token: 's3cret-t0ken' }, policy: loopback });
    const error: unknown = await source.getRepoInfo().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MigrationSourceError);
    expect((error as MigrationSourceError).status).toBe(401);
    expect((error as Error).message).toBe('GET /repos/alice/tools: the source answered 401: token is required');
    expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).not.toMatch(/pa55w0rd|s3cret-t0ken|hunter2/);
    // The address's own user info is not sent anywhere either: the token is.
    expect(server.requests.every((request) => request.authorization === 'token s3cret-t0ken')).toBe(true);
  });
});

describe('getPullPatch', () => {
  const pull = (number: number, patchUrl: string): PullRequest => ({
    number,
    title: 't',
    posterName: 'alice',
    posterId: 1,
    posterEmail: '',
    content: '',
    milestone: '',
    state: 'open',
    created: new Date(0),
    updated: new Date(0),
    labels: [],
    patchUrl,
    merged: false,
    mergeCommitSha: '',
    head: { cloneUrl: '', ref: 'feature', sha: '', repoName: 'tools', ownerName: 'alice' },
    base: { cloneUrl: '', ref: 'main', sha: '', repoName: 'tools', ownerName: 'alice' },
    assignees: [],
    isLocked: false,
    reactions: [],
    foreignIndex: number,
    isDraft: false,
  });

  it("reads the API's patch with the source's credentials, else the patch_url page, else none; other failures fail", async () => {
    const server = await serve({
      before: {
        '/api/v1/repos/alice/tools/pulls/1.patch': [{ status: 200, body: 'from the API' }],
        '/api/v1/repos/alice/tools/pulls/2.patch': [{ status: 404, body: { message: 'not found' } }],
        '/alice/tools/pulls/2.patch': [{ status: 200, body: 'from the page' }],
        '/api/v1/repos/alice/tools/pulls/4.patch': [{ status: 500, body: { message: 'boom' } }],
      },
    });
    const source = await createGiteaDownloader({ cloneAddr: `${server.url}/alice/tools.git`, auth: { ...noAuth, token: 'abc123' }, policy: loopback });
    expect((await source.getPullPatch(pull(1, `${server.url}/alice/tools/pulls/1.patch`)))?.toString()).toBe('"from the API"');
    expect(server.requests.find((request) => request.path === '/api/v1/repos/alice/tools/pulls/1.patch')?.authorization).toBe('token abc123');
    expect((await source.getPullPatch(pull(2, `${server.url}/alice/tools/pulls/2.patch`)))?.toString()).toBe('"from the page"');
    // Neither the API (404 from the fixture's fallback) nor a page: no patch.
    expect(await source.getPullPatch(pull(3, ''))).toBeUndefined();
    await expect(source.getPullPatch(pull(4, ''))).rejects.toMatchObject({ status: 500 });
  });
});
