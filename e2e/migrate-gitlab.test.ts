/**
 * Imports from GitLab (POST /repos/migrate, service gitlab) end to end: the GitLab fixture server of @cairn/testing
 * (API v4 answers in GitLab's shapes, paged 2 at a time, one 429 with Retry-After on the way, the git data over smart
 * HTTP) allowed by ALLOW_LOCALNETWORKS. The copy is compared through Cairn's API with the fixture's data: git refs,
 * topics, labels (GitLab's scoped labels exclusive), milestones, issues (merge request numbers after them), comments,
 * reactions (Gitea's names), releases, and original authors (GitLab shows no e-mail addresses: every author is kept
 * as an original author under the importing user). Confidential issues and internal notes never arrive.
 */
import { GITLAB_TOKEN, type GitlabFixture, startGitlabFixture } from '@cairn/testing';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

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

  it('imports git data, topics, labels, milestones, issues with comments and reactions, and releases', async () => {
    const erin = fixture.as('erin');
    const migrated = await call('POST', '/repos/migrate', erin, {
      clone_addr: `${gitlab.projectUrl}.git`,
      repo_name: 'tools',
      service: 'gitlab',
      auth_token: GITLAB_TOKEN,
      labels: true,
      milestones: true,
      issues: true,
      // PULL REQUESTS: add `pull_requests: true` once helper "pulls" lands (until then the uploader skips pull
      // requests, and the comments of #7 find no issue to go to).
      releases: true,
    });
    expect([migrated.status, migrated.body]).toEqual([201, expect.objectContaining({ full_name: 'erin/tools', default_branch: 'main' })]);
    const status = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/erin/tools/migration`, { headers: erin });
    expect(await status.json()).toMatchObject({ status: 4, message: '' });

    // Git data: the fixture's branches and tags at their commits.
    const branches = await list('/repos/erin/tools/branches', erin);
    expect(Object.fromEntries(branches.map((branch) => [branch.name, (branch.commit as Json).id]))).toEqual({
      main: gitlab.commits.merge,
      feature: gitlab.commits.feature,
      wip: gitlab.commits.second,
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

    // PULL REQUESTS (helper "pulls" imports them in parallel): merge request !1 becomes #7 and !2 #8 (after the
    // largest issue number, 6); once pulls are imported, compare /repos/erin/tools/pulls here with the fixture's
    // merge requests (head feature/wip, base main, merged state, approvals as reviews, comments of #7).

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
