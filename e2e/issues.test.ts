/**
 * Issues end to end: the built supervisor on PostgreSQL, driven over HTTP through the validating client (every
 * body checked against Gitea's description). Creating (Gitea's binding errors, what only writers may set, unknown
 * milestones, labels and assignees refused with nothing created, oversized bodies), reading, the list (Gitea's
 * filters, Link and X-Total-Count, bad dates and users, absurd pages), editing (poster versus writers, 201 with the
 * milestone, content_version 409, unknown state 412), deleting (repository admins), locking, archived repositories
 * (423), a disabled issues unit (404), and the cross-repository search with its access matrix: a private
 * repository's issues only for those who may read it, never for anonymous callers.
 */
import type { ApiClient, ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';

jest.setTimeout(300_000);

interface ApiUser {
  id: number;
  login: string;
}
interface ApiIssue {
  id: number;
  number: number;
  url: string;
  html_url: string;
  title: string;
  body: string;
  ref: string;
  state: string;
  user: ApiUser;
  assignee: ApiUser | null;
  assignees: ApiUser[] | null;
  labels: Array<{ id: number; name: string }>;
  milestone: { id: number; title: string; open_issues: number; closed_issues: number } | null;
  is_locked: boolean;
  comments: number;
  closed_at: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
  content_version: number;
  pull_request: unknown;
  repository: { id: number; name: string; owner: string; full_name: string };
  assets: unknown[];
}
interface ApiError {
  message: string;
  errors?: string[] | null;
}

describe('issues through the gateway', () => {
  let fx: Fixture;
  let api: ApiClient;
  /** `<ROOT_URL>`, as the answers spell it. */
  let rootUrl: string;

  const request = <T = unknown>(method: string, path: string, user?: string, body?: unknown): Promise<ApiResponse<T>> =>
    api.request<T>(method, `/api/v1${path}`, { headers: user === undefined ? undefined : user === 'root' ? fx.root : fx.as(user), body });
  const numbers = (issues: ApiIssue[]) => issues.map((issue) => issue.number);
  const titles = (issues: ApiIssue[]) => issues.map((issue) => issue.title).sort();

  async function createIssue(repo: string, user: string, body: Record<string, unknown>): Promise<ApiIssue> {
    const res = await request<ApiIssue>('POST', `/repos/${repo}/issues`, user, body);
    expect([body.title, res.status]).toEqual([body.title, 201]);
    return res.body;
  }

  async function total(repo: string, query = 'state=all'): Promise<number> {
    const res = await request<ApiIssue[]>('GET', `/repos/${repo}/issues?${query}`, 'olivia');
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-total-count'));
  }

  beforeAll(async () => {
    // olivia owns the repositories; wendy writes, rita reads the private one; pete and eve are strangers.
    fx = await startFixture('e2e_issues', ['olivia', 'wendy', 'rita', 'pete', 'eve']);
    api = fx.api;
    for (const [name, isPrivate] of [
      ['pub', false],
      ['priv', true],
      ['list', false],
      ['frozen', false],
      ['nounit', false],
    ] as const) {
      const res = await request<{ html_url: string }>('POST', '/user/repos', 'olivia', { name, private: isPrivate });
      expect([name, res.status]).toEqual([name, 201]);
      if (name === 'pub') rootUrl = res.body.html_url.replace(/olivia\/pub$/, '');
    }
    for (const [repo, user, permission] of [
      ['pub', 'wendy', 'write'],
      ['priv', 'wendy', 'write'],
      ['priv', 'rita', 'read'],
      ['list', 'wendy', 'write'],
      ['frozen', 'wendy', 'write'],
    ] as const) {
      const res = await request('PUT', `/repos/olivia/${repo}/collaborators/${user}`, 'olivia', { permission });
      expect([repo, user, res.status]).toEqual([repo, user, 204]);
    }
  });
  afterAll(async () => {
    await fx?.stop();
  });

  describe('creating', () => {
    test('a signed-in reader opens an issue: 201 with Gitea Issue, numbered per repository', async () => {
      const res = await request<ApiIssue>('POST', '/repos/olivia/pub/issues', 'pete', { title: 'First', body: 'It broke.', ref: 'main' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        number: 1,
        title: 'First',
        body: 'It broke.',
        ref: 'main',
        state: 'open',
        user: { login: 'pete' },
        assignee: null,
        assignees: null,
        labels: [],
        milestone: null,
        is_locked: false,
        comments: 0,
        closed_at: null,
        due_date: null,
        pull_request: null,
        content_version: 0,
        assets: [],
        html_url: `${rootUrl}olivia/pub/issues/1`,
        url: `${rootUrl}api/v1/repos/olivia/pub/issues/1`,
        repository: { name: 'pub', owner: 'olivia', full_name: 'olivia/pub' },
      });
      const second = await createIssue('olivia/pub', 'wendy', { title: 'Second' });
      expect(second.number).toBe(2);
    });

    test("a reader's milestone, labels, assignees and deadline are ignored, as Gitea does; `closed` is not", async () => {
      const milestone = await request<{ id: number }>('POST', '/repos/olivia/pub/milestones', 'wendy', { title: 'v1' });
      const label = await request<{ id: number }>('POST', '/repos/olivia/pub/labels', 'wendy', { name: 'bug', color: '#ee0701' });
      expect([milestone.status, label.status]).toEqual([201, 201]);
      const issue = await createIssue('olivia/pub', 'pete', {
        title: 'Reader extras',
        milestone: milestone.body.id,
        labels: [label.body.id],
        assignees: ['wendy'],
        due_date: '2030-01-02T03:04:05Z',
        closed: true,
      });
      expect(issue).toMatchObject({ milestone: null, labels: [], assignees: null, due_date: null, state: 'closed' });
      expect(issue.closed_at).not.toBeNull();
    });

    test('a writer sets milestone, labels, assignees (with the deprecated `assignee`) and the deadline', async () => {
      const milestones = await request<Array<{ id: number; title: string }>>('GET', '/repos/olivia/pub/milestones', 'wendy');
      const labels = await request<Array<{ id: number }>>('GET', '/repos/olivia/pub/labels', 'wendy');
      const issue = await createIssue('olivia/pub', 'wendy', {
        title: 'Writer extras',
        body: 'cc @rita',
        milestone: milestones.body[0].id,
        labels: [labels.body[0].id],
        assignees: ['pete'],
        assignee: 'olivia',
        due_date: '2030-01-02T03:04:05+02:00',
      });
      expect(issue.milestone).toMatchObject({ title: 'v1', open_issues: 1, closed_issues: 0 });
      expect(issue.labels.map((l) => l.name)).toEqual(['bug']);
      expect((issue.assignees ?? []).map((user) => user.login).sort()).toEqual(['olivia', 'pete']);
      expect(issue.assignee?.login).toBeDefined();
      expect(issue.due_date).toBe('2030-01-02T01:04:05Z');
    });

    test.each<[string, unknown, number, string]>([
      ['no title', { body: 'x' }, 422, '[Title]: Required'],
      ['a number as title', { title: 5 }, 422, '[]: json: cannot unmarshal number into Go struct field CreateIssueOption.title of type string'],
      ['a string as labels', { title: 't', labels: 'bug' }, 422, '[]: json: cannot unmarshal string into Go struct field CreateIssueOption.labels of type []int64'],
      ['a string as milestone', { title: 't', milestone: '1' }, 422, '[]: json: cannot unmarshal string into Go struct field CreateIssueOption.milestone of type int64'],
      ['a malformed due_date', { title: 't', due_date: 'tomorrow' }, 422, '[]: parsing time "\\"tomorrow\\"" as "\\"2006-01-02T15:04:05Z07:00\\""'],
      ['an unknown milestone', { title: 't', milestone: 999999 }, 404, 'not found'],
      ['a negative milestone', { title: 't', milestone: -3 }, 404, 'not found'],
      ['an unknown label', { title: 't', labels: [999999] }, 422, 'label does not exist [id: 999999]'],
      ['an unknown assignee', { title: 't', assignees: ['nobody'] }, 422, 'Assignee does not exist: [name: user does not exist [uid: 0, name: nobody]]'],
      ['an injection-like assignee', { title: 't', assignee: "x' OR 1=1 --" }, 422, `Assignee does not exist: [name: user does not exist [uid: 0, name: x' OR 1=1 --]]`],
      ['a title over 255 characters', { title: 'x'.repeat(256) }, 422, '[Title]: MaxSize'],
      ['a body over 1 MiB', { title: 't', body: 'x'.repeat(1024 * 1024 + 1) }, 422, 'body is too large: at most 1048576 bytes'],
    ])('%s is refused (%#) and nothing is created', async (_name, body, status, message) => {
      const before = await total('olivia/pub');
      const res = await request<ApiError>('POST', '/repos/olivia/pub/issues', 'wendy', body);
      expect([res.status, res.body.message]).toEqual([status, message]);
      expect(await total('olivia/pub')).toBe(before);
    });

    test('malformed JSON is 400, a request body over MAX_BODY_SIZE 413, anonymous 401; nothing is created', async () => {
      const before = await total('olivia/pub');
      const malformed = await api.request<ApiError>('POST', '/api/v1/repos/olivia/pub/issues', { headers: { ...fx.as('wendy'), 'content-type': 'application/json' }, body: '{"title": "x",' });
      expect(malformed.status).toBe(400);
      // The gateway answers 413 as soon as the limit is passed and closes the connection, so a client still sending
      // may see the connection reset before it reads the answer: either way the body is refused.
      const huge = await api
        .request<ApiError>('POST', '/api/v1/repos/olivia/pub/issues', { headers: fx.as('wendy'), body: { title: 't', body: 'x'.repeat(11 * 1024 * 1024) } })
        .then((response) => response.status)
        .catch((error: Error) => (/EPIPE|ECONNRESET|other side closed/.test(String((error.cause as Error | undefined)?.message ?? error.message)) ? 413 : error));
      expect(huge).toBe(413);
      const anonymous = await request<ApiError>('POST', '/repos/olivia/pub/issues', undefined, { title: 't' });
      expect([anonymous.status, anonymous.body.message]).toEqual([401, 'token is required']);
      const stranger = await request<ApiError>('POST', '/repos/olivia/priv/issues', 'eve', { title: 't' });
      expect(stranger.status).toBe(404);
      expect(await total('olivia/pub')).toBe(before);
    });
  });

  describe('reading', () => {
    test('anyone reads a public issue; a missing, malformed or hidden one is 404', async () => {
      const res = await request<ApiIssue>('GET', '/repos/olivia/pub/issues/1');
      expect([res.status, res.body.title]).toEqual([200, 'First']);
      for (const path of ['/repos/olivia/pub/issues/9999', '/repos/olivia/pub/issues/abc', '/repos/olivia/pub/issues/-1', '/repos/olivia/priv/issues/1']) {
        expect([path, (await request('GET', path, 'eve')).status]).toEqual([path, 404]);
      }
    });
  });

  describe('the list', () => {
    beforeAll(async () => {
      const milestone = await request<{ id: number }>('POST', '/repos/olivia/list/milestones', 'wendy', { title: 'v2' });
      const label = await request<{ id: number }>('POST', '/repos/olivia/list/labels', 'wendy', { name: 'ui', color: '#00aa00' });
      for (let n = 1; n <= 7; n += 1) {
        const extra = n % 2 === 0 ? { milestone: milestone.body.id, labels: [label.body.id], assignees: ['rita'] } : {};
        await createIssue('olivia/list', n === 7 ? 'pete' : 'wendy', { title: `Item ${n}${n === 3 ? ' needle' : ''}`, body: n === 5 ? 'hello @pete' : '', ...extra });
      }
      const closed = await request('PATCH', '/repos/olivia/list/issues/6', 'wendy', { state: 'closed' });
      expect(closed.status).toBe(201);
    });

    test('newest first, open by default, with X-Total-Count and Link', async () => {
      const res = await request<ApiIssue[]>('GET', '/repos/olivia/list/issues?limit=2&page=2', 'eve');
      expect(res.status).toBe(200);
      expect(numbers(res.body)).toEqual([4, 3]);
      expect(res.headers.get('x-total-count')).toBe('6');
      const link = res.headers.get('link') ?? '';
      expect(link).toContain('page=3>; rel="next"');
      expect(link).toContain('page=3>; rel="last"');
      expect(link).toContain('page=1>; rel="first"');
      expect(link).toContain('page=1>; rel="prev"');
      const all = await request<ApiIssue[]>('GET', '/repos/olivia/list/issues?state=all');
      expect(numbers(all.body)).toEqual([7, 6, 5, 4, 3, 2, 1]);
      const closed = await request<ApiIssue[]>('GET', '/repos/olivia/list/issues?state=closed');
      expect([numbers(closed.body), closed.headers.get('x-total-count')]).toEqual([[6], '1']);
    });

    test.each<[string, number[]]>([
      ['labels=ui', [6, 4, 2]],
      ['labels=ui,nope', [6, 4, 2]],
      ['labels=nope', [7, 6, 5, 4, 3, 2, 1]],
      ['milestones=v2', [6, 4, 2]],
      ['milestones=nope', [7, 6, 5, 4, 3, 2, 1]],
      ['q=needle', [3]],
      ['q=ITEM 7', [7]],
      ['created_by=pete', [7]],
      ['assigned_by=rita', [6, 4, 2]],
      ['mentioned_by=pete', [5]],
      ['type=issues', [7, 6, 5, 4, 3, 2, 1]],
      ['type=pulls', []],
      ['since=2000-01-01T00:00:00Z', [7, 6, 5, 4, 3, 2, 1]],
      ['before=2000-01-01T00:00:00Z', []],
      ['page=999999999999', []],
      ['page=99999999999999999999999', [7, 6, 5, 4, 3, 2, 1]],
      ['page=-4&limit=2', [7, 6]],
      ['limit=100000', [7, 6, 5, 4, 3, 2, 1]],
    ])('?%s', async (query, expected) => {
      const res = await request<ApiIssue[]>('GET', `/repos/olivia/list/issues?state=all&${query}`, 'eve');
      expect([query, res.status, numbers(res.body)]).toEqual([query, 200, expected]);
      if (!query.startsWith('page') && !query.startsWith('limit')) expect(res.headers.get('x-total-count')).toBe(String(expected.length));
    });

    test.each<[string, number, ApiError]>([
      ['since=yesterday', 422, { message: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"' }],
      ['before=2024-13-01T00:00:00Z', 422, { message: 'parsing time "2024-13-01T00:00:00Z": month out of range' }],
      ['created_by=nobody', 404, { message: 'not found', errors: ['user does not exist [uid: 0, name: nobody]'] }],
      ['assigned_by=%27%3B%20DROP%20TABLE%20issues%3B--', 404, { message: 'not found', errors: ["user does not exist [uid: 0, name: '; DROP TABLE issues;--]"] }],
    ])('?%s is %d', async (query, status, body) => {
      const res = await request<ApiError>('GET', `/repos/olivia/list/issues?${query}`, 'eve');
      expect([res.status, res.body]).toEqual([status, expect.objectContaining(body)]);
    });

    test("a private repository's list is 404 to those who may not read it", async () => {
      await createIssue('olivia/priv', 'rita', { title: 'Private one' });
      expect((await request('GET', '/repos/olivia/priv/issues', 'eve')).status).toBe(404);
      expect((await request('GET', '/repos/olivia/priv/issues')).status).toBe(404);
      const rita = await request<ApiIssue[]>('GET', '/repos/olivia/priv/issues', 'rita');
      expect([rita.status, titles(rita.body)]).toEqual([200, ['Private one']]);
    });
  });

  describe('editing', () => {
    let index: number;
    beforeAll(async () => {
      index = (await createIssue('olivia/pub', 'pete', { title: 'To edit', body: 'v0' })).number;
    });

    test('the poster changes title, body and state (201 with the issue); writer-only fields stay', async () => {
      const milestones = await request<Array<{ id: number }>>('GET', '/repos/olivia/pub/milestones', 'pete');
      const res = await request<ApiIssue>('PATCH', `/repos/olivia/pub/issues/${index}`, 'pete', {
        title: 'Edited',
        body: 'v1',
        state: 'closed',
        milestone: milestones.body[0].id,
        assignees: ['wendy'],
        due_date: '2031-01-01T10:00:00Z',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: 'Edited', body: 'v1', state: 'closed', milestone: null, assignees: null, due_date: null, content_version: 1, user: { login: 'pete' } });
      const reopened = await request<ApiIssue>('PATCH', `/repos/olivia/pub/issues/${index}`, 'pete', { state: 'open' });
      expect([reopened.status, reopened.body.state, reopened.body.closed_at]).toEqual([201, 'open', null]);
    });

    test('a writer sets milestone, assignees and the deadline (end of that day in its offset); 0 and unset_due_date remove them', async () => {
      const milestones = await request<Array<{ id: number }>>('GET', '/repos/olivia/pub/milestones', 'wendy');
      const res = await request<ApiIssue>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', {
        milestone: milestones.body[0].id,
        assignees: ['rita', 'pete'],
        due_date: '2031-01-01T10:00:00+02:00',
      });
      expect(res.status).toBe(201);
      expect(res.body.milestone?.id).toBe(milestones.body[0].id);
      expect((res.body.assignees ?? []).map((user) => user.login).sort()).toEqual(['pete', 'rita']);
      expect(res.body.due_date).toBe('2031-01-01T21:59:59Z');
      const cleared = await request<ApiIssue>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { milestone: 0, assignees: [], unset_due_date: true });
      expect([cleared.status, cleared.body.milestone, cleared.body.assignees, cleared.body.due_date]).toEqual([201, null, null, null]);
      const noDate = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { unset_due_date: false });
      expect([noDate.status, noDate.body.message]).toEqual([400, 'The due_date cannot be empty']);
    });

    test('someone who neither posted nor writes gets a bare 403 and nothing changes', async () => {
      const res = await request('PATCH', `/repos/olivia/pub/issues/${index}`, 'eve', { title: 'Hijacked' });
      expect([res.status, res.body]).toEqual([403, '']);
      expect((await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${index}`)).body.title).toBe('Edited');
    });

    test('a stale content_version is 409, an unknown state 412, an unknown milestone 404, an unknown assignee 422; nothing changes', async () => {
      const current = (await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${index}`)).body;
      const stale = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'pete', { body: 'lost', content_version: current.content_version - 1 });
      expect([stale.status, stale.body.message]).toEqual([409, 'the issue is already changed']);
      const state = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { title: 'nope', state: 'merged' });
      expect([state.status, state.body.message]).toEqual([412, 'unknown state: merged']);
      const milestone = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { title: 'nope', milestone: 777777 });
      expect(milestone.status).toBe(404);
      const assignee = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { title: 'nope', assignees: ['ghost-user'] });
      expect([assignee.status, assignee.body.message]).toEqual([422, 'user does not exist [uid: 0, name: ghost-user]']);
      const types = await request<ApiError>('PATCH', `/repos/olivia/pub/issues/${index}`, 'wendy', { content_version: 'one' });
      expect(types.status).toBe(422);
      const after = (await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${index}`)).body;
      expect([after.title, after.body, after.content_version]).toEqual([current.title, current.body, current.content_version]);
      const fresh = await request<ApiIssue>('PATCH', `/repos/olivia/pub/issues/${index}`, 'pete', { body: 'v2', content_version: current.content_version });
      expect([fresh.status, fresh.body.content_version]).toEqual([201, current.content_version + 1]);
    });
  });

  describe('deleting and locking', () => {
    test('only repository admins (and site admins) delete: 204, then 404', async () => {
      const issue = await createIssue('olivia/pub', 'pete', { title: 'To delete' });
      for (const user of ['pete', 'wendy']) {
        const res = await request<ApiError>('DELETE', `/repos/olivia/pub/issues/${issue.number}`, user);
        expect([user, res.status, res.body.message]).toEqual([user, 403, 'user should be an owner or a collaborator with admin write of a repository']);
      }
      expect((await request('DELETE', `/repos/olivia/pub/issues/${issue.number}`, 'olivia')).status).toBe(204);
      expect((await request('GET', `/repos/olivia/pub/issues/${issue.number}`)).status).toBe(404);
      expect((await request('DELETE', `/repos/olivia/pub/issues/${issue.number}`, 'olivia')).status).toBe(404);
      const other = await createIssue('olivia/pub', 'pete', { title: 'Root deletes' });
      expect((await request('DELETE', `/repos/olivia/pub/issues/${other.number}`, 'root')).status).toBe(204);
    });

    test('issue writers lock and unlock (204); others 403', async () => {
      const issue = await createIssue('olivia/pub', 'pete', { title: 'To lock' });
      const denied = await request<ApiError>('PUT', `/repos/olivia/pub/issues/${issue.number}/lock`, 'pete', { lock_reason: 'spam' });
      expect([denied.status, denied.body.message]).toEqual([403, 'no permission to lock this issue']);
      expect((await request('PUT', `/repos/olivia/pub/issues/${issue.number}/lock`, 'wendy', { lock_reason: 'Too heated' })).status).toBe(204);
      expect((await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${issue.number}`)).body.is_locked).toBe(true);
      expect((await request('PUT', `/repos/olivia/pub/issues/${issue.number}/lock`, 'wendy', {})).status).toBe(204);
      expect((await request('DELETE', `/repos/olivia/pub/issues/${issue.number}/lock`, 'wendy')).status).toBe(204);
      expect((await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${issue.number}`)).body.is_locked).toBe(false);
      expect((await request('PUT', '/repos/olivia/pub/issues/99999/lock', 'wendy', {})).status).toBe(404);
    });
  });

  describe('repository state', () => {
    test('an archived repository answers 423 to every change and still reads', async () => {
      const issue = await createIssue('olivia/frozen', 'pete', { title: 'Before the freeze' });
      expect((await request('PATCH', '/repos/olivia/frozen', 'olivia', { archived: true })).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/repos/olivia/frozen/issues', { title: 'x' }],
        ['PATCH', `/repos/olivia/frozen/issues/${issue.number}`, { title: 'x' }],
        ['PUT', `/repos/olivia/frozen/issues/${issue.number}/lock`, {}],
        ['DELETE', `/repos/olivia/frozen/issues/${issue.number}`, undefined],
      ] as const) {
        const res = await request<ApiError>(method, path, method === 'DELETE' ? 'olivia' : 'wendy', body);
        expect([method, res.status, res.body.message]).toEqual([method, 423, 'olivia/frozen is archived']);
      }
      expect((await request<ApiIssue>('GET', `/repos/olivia/frozen/issues/${issue.number}`)).body.title).toBe('Before the freeze');
    });

    test('a disabled issues unit hides the issues (404)', async () => {
      const issue = await createIssue('olivia/nounit', 'pete', { title: 'Soon hidden' });
      expect((await request('PATCH', '/repos/olivia/nounit', 'olivia', { has_issues: false })).status).toBe(200);
      expect((await request('GET', `/repos/olivia/nounit/issues/${issue.number}`, 'olivia')).status).toBe(404);
      expect((await request('POST', '/repos/olivia/nounit/issues', 'olivia', { title: 'x' })).status).toBe(404);
      const list = await request<ApiIssue[]>('GET', '/repos/olivia/nounit/issues?state=all', 'olivia');
      expect(list.status === 404 || (list.status === 200 && list.body.length === 0)).toBe(true);
      expect((await request<ApiIssue[]>('GET', '/repos/issues/search?state=all&q=Soon%20hidden', 'olivia')).body).toEqual([]);
    });
  });

  describe('search', () => {
    beforeAll(async () => {
      await createIssue('olivia/priv', 'wendy', { title: 'Secret plan', body: 'ask @rita', assignees: ['rita'] });
      await createIssue('olivia/pub', 'rita', { title: 'Public plan' });
    });

    async function search(query: string, user?: string): Promise<ApiResponse<ApiIssue[]>> {
      const res = await request<ApiIssue[]>('GET', `/repos/issues/search?${query}`, user);
      expect([query, user, res.status]).toEqual([query, user, 200]);
      return res;
    }

    test("a private repository's issues only for those who may read it", async () => {
      for (const [user, expected] of [
        [undefined, ['Public plan']],
        ['eve', ['Public plan']],
        ['pete', ['Public plan']],
        ['rita', ['Public plan', 'Secret plan']],
        ['wendy', ['Public plan', 'Secret plan']],
        ['root', ['Public plan', 'Secret plan']],
      ] as const) {
        const res = await search('q=plan', user);
        expect([user, titles(res.body), res.headers.get('x-total-count')]).toEqual([user, expected, String(expected.length)]);
      }
      // A token limited to public resources searches public repositories only; one without the issue scope is 403.
      const token = async (name: string, scopes: string[]): Promise<Record<string, string>> => {
        const res = await request<{ sha1: string }>('POST', '/users/rita/tokens', 'rita', { name, scopes });
        expect([name, res.status]).toEqual([name, 201]);
        return { authorization: `token ${res.body.sha1}` };
      };
      const publicOnly = await api.request<ApiIssue[]>('GET', '/api/v1/repos/issues/search?q=plan', { headers: await token('public', ['read:issue', 'public-only']) });
      expect([publicOnly.status, titles(publicOnly.body)]).toEqual([200, ['Public plan']]);
      const full = await api.request<ApiIssue[]>('GET', '/api/v1/repos/issues/search?q=plan', { headers: await token('full', ['read:issue']) });
      expect([full.status, titles(full.body)]).toEqual([200, ['Public plan', 'Secret plan']]);
      const noScope = await api.request<ApiError>('GET', '/api/v1/repos/issues/search?q=plan', { headers: await token('user', ['read:user']) });
      expect(noScope.status).toBe(403);
      const secret = (await search('q=Secret', 'rita')).body[0];
      expect(secret.repository).toMatchObject({ full_name: 'olivia/priv' });
      expect(secret.html_url).toBe(`${rootUrl}olivia/priv/issues/${secret.number}`);
    });

    test("the caller's own filters: created, assigned, mentioned; ignored for anonymous callers", async () => {
      expect(titles((await search('created=true&q=plan', 'rita')).body)).toEqual(['Public plan']);
      expect(titles((await search('assigned=true&q=plan', 'rita')).body)).toEqual(['Secret plan']);
      expect(titles((await search('mentioned=true', 'rita')).body)).toEqual(['Secret plan', 'Writer extras']);
      expect(titles((await search('mentioned=true&q=plan')).body)).toEqual(['Public plan']);
      expect((await search('review_requested=true', 'rita')).body).toEqual([]);
      expect(titles((await search('created_by=rita&q=plan', 'wendy')).body)).toEqual(['Public plan']);
    });

    test('owner, state, type, labels and milestones filters; paging with Link', async () => {
      expect(titles((await search('owner=olivia&q=plan', 'rita')).body)).toEqual(['Public plan', 'Secret plan']);
      expect((await search('owner=wendy&q=plan', 'rita')).body).toEqual([]);
      expect((await search('type=pulls', 'root')).body).toEqual([]);
      expect(titles((await search('labels=ui&state=all', 'eve')).body)).toEqual(['Item 2', 'Item 4', 'Item 6']);
      expect(titles((await search('milestones=v2', 'eve')).body)).toEqual(['Item 2', 'Item 4']);
      expect(titles((await search('state=closed&q=Item', 'eve')).body)).toEqual(['Item 6']);
      const paged = await search('q=Item&limit=2&page=2', 'eve');
      expect([paged.body.length, paged.headers.get('x-total-count')]).toEqual([2, '6']);
      expect(paged.headers.get('link')).toContain('rel="next"');
      const defaults = await search('state=all', 'root');
      expect(defaults.body.length).toBeLessThanOrEqual(30);
    });

    test("a deleted poster is shown as Gitea's Ghost user", async () => {
      const issue = await createIssue('olivia/pub', 'eve', { title: 'Orphan' });
      expect((await request('DELETE', '/admin/users/eve', 'root')).status).toBe(204);
      const res = await request<ApiIssue>('GET', `/repos/olivia/pub/issues/${issue.number}`);
      expect([res.status, res.body.user.id, res.body.user.login]).toEqual([200, -1, 'Ghost']);
    });

    test('bad input: unknown owner 400, team without owner 400, malformed dates 422', async () => {
      const owner = await request<ApiError>('GET', '/repos/issues/search?owner=nobody');
      expect([owner.status, owner.body.message]).toEqual([400, 'user does not exist [uid: 0, name: nobody]']);
      const team = await request<ApiError>('GET', '/repos/issues/search?team=devs', 'rita');
      expect([team.status, team.body.message]).toEqual([400, 'Owner organisation is required for filtering on team']);
      const since = await request<ApiError>('GET', '/repos/issues/search?since=2024-02-30T00:00:00Z');
      expect([since.status, since.body.message]).toEqual([422, 'parsing time "2024-02-30T00:00:00Z": day out of range']);
      expect((await search('page=-1&limit=-5')).status).toBe(200);
      expect((await search('page=999999999999&q=plan')).body).toEqual([]);
    });
  });
  test("a repository's open_issues_count follows its issues (issues' counters, not a count)", async () => {
    const made = await request('POST', '/user/repos', 'olivia', { name: 'counted' });
    expect(made.status).toBe(201);
    const openCount = async () => {
      const res = await request<{ open_issues_count: number; open_pr_counter: number }>('GET', '/repos/olivia/counted', 'olivia');
      expect(res.status).toBe(200);
      return [res.body.open_issues_count, res.body.open_pr_counter];
    };
    expect(await openCount()).toEqual([0, 0]);
    const first = await createIssue('olivia/counted', 'olivia', { title: 'one' });
    await createIssue('olivia/counted', 'olivia', { title: 'two' });
    await createIssue('olivia/counted', 'olivia', { title: 'three', closed: true });
    expect(await openCount()).toEqual([2, 0]);
    expect((await request('PATCH', `/repos/olivia/counted/issues/${first.number}`, 'olivia', { state: 'closed' })).status).toBe(201);
    expect(await openCount()).toEqual([1, 0]);
    const listed = await request<Array<{ name: string; open_issues_count: number }>>('GET', '/users/olivia/repos', 'olivia');
    expect(listed.body.find((repo) => repo.name === 'counted')?.open_issues_count).toBe(1);
  });
});
