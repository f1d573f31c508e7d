/**
 * Labels and milestones end to end: the built supervisor on PostgreSQL, driven over HTTP through the validating
 * client (every body checked against Gitea's description). Repository labels (Gitea's colour rules, writers of
 * issues change them, readers read them, another repository's label is 404, X-Total-Count), organization labels
 * (owners and site admins change them), the labels on an issue (ids or names, organization labels, exclusive
 * scopes, unknown labels 422 with nothing changed, Gitea's 400s for bad elements, readers 403), milestones (lookup
 * by id or title, `state` filter, counts of open and closed issues as issues are opened, closed and moved), and
 * bad input (malformed JSON and dates, wrong types, oversized names) answered with 4xx and nothing changed.
 */
import type { ApiClient, ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';

jest.setTimeout(240_000);

interface ApiLabel {
  id: number;
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  is_archived: boolean;
  url: string;
}
interface ApiMilestone {
  id: number;
  title: string;
  description: string;
  state: string;
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string | null;
  closed_at: string | null;
  due_on: string | null;
}
interface ApiIssue {
  number: number;
  labels: ApiLabel[];
  milestone: ApiMilestone | null;
}
interface ApiError {
  message: string;
  errors?: string[] | null;
}

describe('labels and milestones through the gateway', () => {
  let fx: Fixture;
  let api: ApiClient;
  /** `<ROOT_URL>api/v1/`, as the answers spell it. */
  let apiRoot: string;

  const as = (user: string) => (user === 'root' ? fx.root : fx.as(user));
  const request = <T = unknown>(method: string, path: string, user?: string, body?: unknown): Promise<ApiResponse<T>> =>
    api.request<T>(method, `/api/v1${path}`, { headers: user === undefined ? undefined : as(user), body });
  const names = (labels: ApiLabel[] | null) => (labels ?? []).map((label) => label.name);

  async function createLabel(path: string, user: string, body: Record<string, unknown>): Promise<ApiLabel> {
    const res = await request<ApiLabel>('POST', path, user, body);
    expect([body.name, res.status, res.body]).toEqual([body.name, 201, expect.anything()]);
    return res.body;
  }

  async function createIssue(repo: string, title: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await request<ApiIssue>('POST', `/repos/${repo}/issues`, 'alice', { title, ...extra });
    expect([title, res.status]).toEqual([title, 201]);
    return res.body.number;
  }

  beforeAll(async () => {
    fx = await startFixture('e2e_labels_milestones', ['alice', 'bob', 'carol', 'dave', 'erin']);
    api = fx.api;
    for (const [name, isPrivate] of [
      ['pub', false],
      ['secret', true],
      ['frozen', false],
    ] as const) {
      const res = await request<{ url: string }>('POST', '/user/repos', 'alice', { name, private: isPrivate, auto_init: true });
      expect([name, res.status]).toEqual([name, 201]);
      if (name === 'pub') apiRoot = res.body.url.replace(/repos\/alice\/pub$/, '');
    }
    // bob writes alice/pub, carol reads it.
    for (const [user, permission] of [
      ['bob', 'write'],
      ['carol', 'read'],
    ]) {
      expect((await request('PUT', `/repos/alice/pub/collaborators/${user}`, 'alice', { permission })).status).toBe(204);
    }
    // acme: alice owns it; erin is in a team that writes its repositories' issues, but does not own it.
    expect((await request('POST', '/orgs', 'alice', { username: 'acme', email: 'acme@example.com' })).status).toBe(201);
    const team = await request<{ id: number }>('POST', '/orgs/acme/teams', 'alice', {
      name: 'devs',
      includes_all_repositories: true,
      units_map: { 'repo.code': 'write', 'repo.issues': 'write', 'repo.pulls': 'write' },
    });
    expect(team.status).toBe(201);
    expect((await request('PUT', `/teams/${team.body.id}/members/erin`, 'alice')).status).toBe(204);
    expect((await request('POST', '/orgs/acme/repos', 'alice', { name: 'tools', auto_init: true })).status).toBe(201);
  });

  afterAll(async () => {
    await fx?.stop();
  });

  describe('repository labels', () => {
    it('are created (colour normalised), read by id or name, listed with X-Total-Count, edited and deleted', async () => {
      const bug = await createLabel('/repos/alice/pub/labels', 'bob', { name: 'bug', color: '#EE0701', description: 'Something is broken' });
      expect(bug).toEqual({
        id: bug.id,
        name: 'bug',
        color: 'ee0701',
        description: 'Something is broken',
        exclusive: false,
        is_archived: false,
        url: `${apiRoot}repos/alice/pub/labels/${bug.id}`,
      });
      const short = await createLabel('/repos/alice/pub/labels', 'alice', { name: 'Docs', color: 'AbC' });
      expect(short.color).toBe('aabbcc');

      const list = await request<ApiLabel[]>('GET', '/repos/alice/pub/labels');
      expect(list.status).toBe(200);
      expect(names(list.body)).toEqual(['bug', 'Docs']);
      expect(list.headers.get('x-total-count')).toBe('2');
      expect(list.headers.get('link')).toBeNull();
      const paged = await request<ApiLabel[]>('GET', '/repos/alice/pub/labels?page=2&limit=1');
      expect([names(paged.body), paged.headers.get('x-total-count')]).toEqual([['Docs'], '2']);

      expect((await request<ApiLabel>('GET', `/repos/alice/pub/labels/${bug.id}`)).body).toEqual(bug);
      expect((await request<ApiLabel>('GET', '/repos/alice/pub/labels/Docs')).body).toEqual(short);

      const archived = await request<ApiLabel>('PATCH', `/repos/alice/pub/labels/${short.id}`, 'bob', { name: 'docs', is_archived: true });
      expect([archived.status, archived.body.name, archived.body.is_archived, archived.body.color]).toEqual([200, 'docs', true, 'aabbcc']);
      // Gitea sets the archived state on every edit: leaving `is_archived` out unarchives.
      const recoloured = await request<ApiLabel>('PATCH', `/repos/alice/pub/labels/${short.id}`, 'bob', { color: '#00ff00', exclusive: true });
      expect([recoloured.status, recoloured.body.color, recoloured.body.exclusive, recoloured.body.is_archived]).toEqual([200, '00ff00', true, false]);

      const deleted = await request('DELETE', `/repos/alice/pub/labels/${short.id}`, 'bob');
      expect([deleted.status, deleted.body]).toEqual([204, '']);
      const gone = await request<ApiError>('GET', `/repos/alice/pub/labels/${short.id}`);
      expect([gone.status, gone.body.message, gone.body.errors]).toEqual([404, 'not found', null]);
      expect((await request('DELETE', `/repos/alice/pub/labels/${short.id}`, 'bob')).status).toBe(404);
      expect((await request('PATCH', '/repos/alice/pub/labels/not-a-number', 'bob', { name: 'x' })).status).toBe(404);
    });

    it('refuse bad input with 4xx and create nothing', async () => {
      const count = async () => (await request<ApiLabel[]>('GET', '/repos/alice/pub/labels')).headers.get('x-total-count');
      const before = await count();
      const cases: Array<[unknown, number, string | undefined]> = [
        [{ name: 'x', color: '#zzzzzz' }, 422, 'bad color code: #zzzzzz'],
        [{ name: 'x', color: '12345' }, 422, 'bad color code: 12345'],
        [{ color: '#00aabb' }, 422, '[Name]: Required'],
        [{ name: 'x' }, 422, '[Color]: Required'],
        [{ name: 5, color: '#00aabb' }, 422, '[]: json: cannot unmarshal number into Go struct field CreateLabelOption.name of type string'],
        [{ name: 'x', color: '#00aabb', exclusive: 'yes' }, 422, '[]: json: cannot unmarshal string into Go struct field CreateLabelOption.exclusive of type bool'],
        [{ name: 'n'.repeat(256), color: '#00aabb' }, 422, undefined],
        [{ name: 'x', color: '#00aabb', description: 'd'.repeat(256) }, 422, undefined],
        [{ name: 'nul\u0000', color: '#00aabb' }, 422, undefined],
        ['{"name": "x", "color": ', 400, undefined],
        [[1, 2], 422, undefined],
      ];
      for (const [body, status, message] of cases) {
        const res = await request<ApiError>('POST', '/repos/alice/pub/labels', 'bob', body);
        expect([body, res.status]).toEqual([body, status]);
        if (message !== undefined) expect(res.body.message).toBe(message);
      }
      // An injection-like name is only a name.
      const odd = await createLabel('/repos/alice/pub/labels', 'bob', { name: "x'); DROP TABLE labels; --", color: '123' });
      expect((await request('DELETE', `/repos/alice/pub/labels/${odd.id}`, 'bob')).status).toBe(204);
      expect(await count()).toBe(before);
    });

    it('are changed by writers only and never seen through a repository the caller may not read', async () => {
      const label = await createLabel('/repos/alice/secret/labels', 'alice', { name: 'hidden', color: '#000000' });
      const readerTry = await request<ApiError>('POST', '/repos/alice/pub/labels', 'carol', { name: 'x', color: '#000000' });
      expect([readerTry.status, readerTry.body.message]).toEqual([403, 'user should have a permission to write to a repo']);
      expect((await request('POST', '/repos/alice/pub/labels', undefined, { name: 'x', color: '#000000' })).status).toBe(401);
      expect((await request('GET', '/repos/alice/pub/labels', 'carol')).status).toBe(200);
      expect((await request('GET', '/repos/alice/secret/labels', 'dave')).status).toBe(404);
      expect((await request('GET', `/repos/alice/secret/labels/${label.id}`)).status).toBe(404);
      expect((await request('PATCH', `/repos/alice/secret/labels/${label.id}`, 'bob', { name: 'seen' })).status).toBe(404);
      // Another repository's label is not this repository's.
      expect((await request('GET', `/repos/alice/pub/labels/${label.id}`, 'alice')).status).toBe(404);
      expect((await request('DELETE', `/repos/alice/pub/labels/${label.id}`, 'alice')).status).toBe(404);
      expect((await request<ApiLabel>('GET', `/repos/alice/secret/labels/${label.id}`, 'alice')).body.name).toBe('hidden');
    });

    it('an archived repository takes no change (423)', async () => {
      const label = await createLabel('/repos/alice/frozen/labels', 'alice', { name: 'old', color: '#000000' });
      expect((await request('PATCH', '/repos/alice/frozen', 'alice', { archived: true })).status).toBe(200);
      const refused = await request<ApiError>('POST', '/repos/alice/frozen/labels', 'alice', { name: 'new', color: '#000000' });
      expect([refused.status, refused.body.message]).toEqual([423, 'alice/frozen is archived']);
      expect((await request('DELETE', `/repos/alice/frozen/labels/${label.id}`, 'alice')).status).toBe(423);
      expect(names((await request<ApiLabel[]>('GET', '/repos/alice/frozen/labels')).body)).toEqual(['old']);
    });
  });

  describe('organization labels', () => {
    it('are changed by owners and site admins, read by anyone who sees the organization', async () => {
      const kind = await createLabel('/orgs/acme/labels', 'alice', { name: 'kind/bug', color: 'f00', exclusive: true });
      expect(kind).toMatchObject({ color: 'ff0000', exclusive: true, url: `${apiRoot}orgs/acme/labels/${kind.id}` });
      await createLabel('/orgs/acme/labels', 'root', { name: 'kind/feature', color: '0f0', exclusive: true });

      const member = await request<ApiError>('POST', '/orgs/acme/labels', 'erin', { name: 'nope', color: '#000000' });
      expect([member.status, member.body.message]).toEqual([403, 'Must be an organization owner']);
      expect((await request('PATCH', `/orgs/acme/labels/${kind.id}`, 'erin', { name: 'nope' })).status).toBe(403);
      expect((await request('DELETE', `/orgs/acme/labels/${kind.id}`, 'erin')).status).toBe(403);
      expect((await request('POST', '/orgs/acme/labels', undefined, { name: 'nope', color: '#000000' })).status).toBe(401);

      const list = await request<ApiLabel[]>('GET', '/orgs/acme/labels');
      expect([list.status, names(list.body), list.headers.get('x-total-count')]).toEqual([200, ['kind/bug', 'kind/feature'], '2']);
      // One label needs a token (Gitea's reqToken on that route).
      expect((await request('GET', `/orgs/acme/labels/${kind.id}`)).status).toBe(401);
      expect((await request<ApiLabel>('GET', `/orgs/acme/labels/${kind.id}`, 'dave')).body).toEqual(kind);
      expect((await request<ApiLabel>('GET', '/orgs/acme/labels/kind%2Fbug', 'dave')).body.id).toBe(kind.id);
      // A user is not an organization; a repository label is not the organization's.
      expect((await request('GET', '/orgs/alice/labels')).status).toBe(404);
      const repoLabel = (await request<ApiLabel[]>('GET', '/repos/alice/pub/labels')).body[0];
      expect((await request('GET', `/orgs/acme/labels/${repoLabel.id}`, 'alice')).status).toBe(404);

      const edited = await request<ApiLabel>('PATCH', `/orgs/acme/labels/${kind.id}`, 'alice', { description: 'defects' });
      expect([edited.status, edited.body.description]).toEqual([200, 'defects']);
    });

    it('of a private organization are invisible to those who may not see it', async () => {
      expect((await request('POST', '/orgs', 'alice', { username: 'hush', email: 'hush@example.com', visibility: 'private' })).status).toBe(201);
      const label = await createLabel('/orgs/hush/labels', 'alice', { name: 'quiet', color: '#000000' });
      expect((await request('GET', '/orgs/hush/labels')).status).toBe(404);
      expect((await request('GET', '/orgs/hush/labels', 'dave')).status).toBe(404);
      expect((await request('GET', `/orgs/hush/labels/${label.id}`, 'dave')).status).toBe(404);
      expect((await request('POST', '/orgs/hush/labels', 'dave', { name: 'loud', color: '#000000' })).status).toBe(404);
      expect(names((await request<ApiLabel[]>('GET', '/orgs/hush/labels', 'alice')).body)).toEqual(['quiet']);
    });
  });

  describe('labels on an issue', () => {
    let repoBug: ApiLabel;
    let high: ApiLabel;
    let low: ApiLabel;
    let orgKinds: ApiLabel[];
    let index: number;
    const path = () => `/repos/acme/tools/issues/${index}/labels`;
    const current = async () => names((await request<ApiLabel[]>('GET', path(), 'alice')).body);

    beforeAll(async () => {
      repoBug = await createLabel('/repos/acme/tools/labels', 'alice', { name: 'bug', color: '#ee0701' });
      high = await createLabel('/repos/acme/tools/labels', 'alice', { name: 'prio/high', color: '#ff0000', exclusive: true });
      low = await createLabel('/repos/acme/tools/labels', 'alice', { name: 'prio/low', color: '#00ff00', exclusive: true });
      orgKinds = (await request<ApiLabel[]>('GET', '/orgs/acme/labels')).body;
      index = await createIssue('acme/tools', 'labelled issue');
    });

    it('are added by id or by name, organization labels included, and listed with their own URLs', async () => {
      const added = await request<ApiLabel[]>('POST', path(), 'erin', { labels: [repoBug.id, orgKinds[0].id] });
      expect([added.status, names(added.body)]).toEqual([200, ['bug', 'kind/bug']]);
      const orgLabel = added.body.find((label) => label.name === 'kind/bug');
      expect(orgLabel?.url).toBe(`${apiRoot}orgs/acme/labels/${orgKinds[0].id}`);
      expect(added.body.find((label) => label.name === 'bug')?.url).toBe(`${apiRoot}repos/acme/tools/labels/${repoBug.id}`);
      const byName = await request<ApiLabel[]>('POST', path(), 'erin', { labels: ['prio/high'] });
      expect(names(byName.body)).toEqual(['bug', 'kind/bug', 'prio/high']);
      const issue = await request<ApiIssue>('GET', `/repos/acme/tools/issues/${index}`, 'dave');
      expect(names(issue.body.labels)).toEqual(['bug', 'kind/bug', 'prio/high']);
    });

    it('keep one label per exclusive scope', async () => {
      const res = await request<ApiLabel[]>('POST', path(), 'erin', { labels: [low.id, orgKinds[1].id] });
      expect(names(res.body)).toEqual(['bug', 'kind/feature', 'prio/low']);
      const replaced = await request<ApiLabel[]>('PUT', path(), 'erin', { labels: [high.id, low.id, repoBug.id] });
      expect(names(replaced.body)).toEqual(['bug', 'prio/low']);
    });

    it('refuse unknown labels (422), bad elements and mixed lists (400) and readers (403), changing nothing', async () => {
      const before = await current();
      const cases: Array<[string, unknown, number, string | undefined]> = [
        ['POST', { labels: [repoBug.id, 987654321] }, 422, 'label does not exist [id: 987654321]'],
        ['POST', { labels: ['no-such-label'] }, 422, 'label does not exist [name: no-such-label]'],
        ['PUT', { labels: [orgKinds[0].id, -4] }, 422, undefined],
        ['PUT', { labels: [1e300] }, 422, undefined],
        ['POST', { labels: [repoBug.id, 'prio/high'] }, 400, 'labels should be an array of strings or integers'],
        ['POST', { labels: [true] }, 400, 'a label must be an integer or a string'],
        ['PUT', { labels: [null] }, 400, 'a label must be an integer or a string'],
        ['PUT', { labels: [{ id: repoBug.id }] }, 400, 'a label must be an integer or a string'],
        ['POST', { labels: 'bug' }, 422, '[]: json: cannot unmarshal string into Go struct field IssueLabelsOption.labels of type []interface {}'],
        ['PUT', '{"labels": [', 400, undefined],
      ];
      for (const [method, body, status, message] of cases) {
        const res = await request<ApiError>(method, path(), 'erin', body);
        expect([method, body, res.status]).toEqual([method, body, status]);
        if (message !== undefined) expect(res.body.message).toBe(message);
      }
      // A label of another repository is as unknown as one that does not exist.
      const foreign = (await request<ApiLabel[]>('GET', '/repos/alice/pub/labels')).body[0];
      expect((await request('POST', path(), 'erin', { labels: [foreign.id] })).status).toBe(422);
      expect((await request('DELETE', `${path()}/${foreign.id}`, 'erin')).status).toBe(422);

      const reader = await request<ApiError>('POST', path(), 'dave', { labels: [repoBug.id] });
      expect([reader.status, reader.body.message]).toEqual([403, 'write permission is required']);
      expect((await request('PUT', path(), 'dave', { labels: [] })).status).toBe(403);
      // Gitea's bare 403 (no body) for removing and clearing.
      const bare = await request('DELETE', path(), 'dave');
      expect([bare.status, bare.body]).toEqual([403, '']);
      expect((await request('DELETE', `${path()}/${repoBug.id}`, 'dave')).status).toBe(403);
      expect((await request('POST', path(), undefined, { labels: [repoBug.id] })).status).toBe(401);
      expect((await request('GET', '/repos/acme/tools/issues/9999/labels')).status).toBe(404);
      expect((await request('POST', '/repos/acme/tools/issues/9999/labels', 'erin', { labels: [repoBug.id] })).status).toBe(404);
      expect(await current()).toEqual(before);
    });

    it('are removed one at a time and cleared (204)', async () => {
      await request('PUT', path(), 'erin', { labels: [repoBug.id, high.id] });
      const removed = await request('DELETE', `${path()}/${high.id}`, 'erin');
      expect([removed.status, removed.body]).toEqual([204, '']);
      expect(await current()).toEqual(['bug']);
      // A label of the repository the issue does not carry: nothing to remove, still 204.
      expect((await request('DELETE', `${path()}/${low.id}`, 'erin')).status).toBe(204);
      expect((await request('DELETE', `${path()}/987654321`, 'erin')).status).toBe(422);
      expect((await request('DELETE', path(), 'erin')).status).toBe(204);
      expect(await current()).toEqual([]);
      const empty = await request<ApiLabel[]>('GET', path());
      expect([empty.status, empty.body]).toEqual([200, []]);
    });

    it('a deleted label leaves the issues that had it', async () => {
      const temp = await createLabel('/repos/acme/tools/labels', 'alice', { name: 'temp', color: '#123456' });
      await request('POST', path(), 'erin', { labels: [temp.id, repoBug.id] });
      expect((await request('DELETE', `/repos/acme/tools/labels/${temp.id}`, 'alice')).status).toBe(204);
      expect(await current()).toEqual(['bug']);
    });
  });

  describe('milestones', () => {
    const base = '/repos/alice/pub/milestones';

    it('are created open or closed, read by id or title, listed by state and name with X-Total-Count', async () => {
      const created = await request<ApiMilestone>('POST', base, 'bob', { title: '  v1.0 ', description: 'first', due_on: '2030-01-02T03:04:05Z' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ title: 'v1.0', description: 'first', state: 'open', open_issues: 0, closed_issues: 0, closed_at: null });
      expect(created.body.due_on).toBe('2030-01-02T03:04:05Z');
      const done = await request<ApiMilestone>('POST', base, 'bob', { title: 'v0.9 beta', state: 'closed' });
      expect([done.status, done.body.state, done.body.due_on]).toEqual([201, 'closed', null]);
      expect(done.body.closed_at).not.toBeNull();

      expect((await request<ApiMilestone>('GET', `${base}/${created.body.id}`)).body.title).toBe('v1.0');
      expect((await request<ApiMilestone>('GET', `${base}/v1.0`)).body.id).toBe(created.body.id);
      expect((await request<ApiMilestone>('GET', `${base}/v0.9%20beta`)).body.id).toBe(done.body.id);
      const missing = await request<ApiError>('GET', `${base}/nothing-here`);
      expect([missing.status, missing.body.errors]).toEqual([404, null]);
      expect((await request('GET', `${base}/987654`)).status).toBe(404);

      const titles = async (query: string) => {
        const res = await request<ApiMilestone[]>('GET', `${base}${query}`);
        expect(res.headers.get('link')).toBeNull();
        return [res.body.map((m) => m.title), res.headers.get('x-total-count')];
      };
      expect(await titles('')).toEqual([['v1.0'], '1']);
      expect(await titles('?state=bogus')).toEqual([['v1.0'], '1']);
      expect(await titles('?state=closed')).toEqual([['v0.9 beta'], '1']);
      expect(await titles('?state=all')).toEqual([['v1.0', 'v0.9 beta'], '2']);
      expect(await titles('?state=all&name=BETA')).toEqual([['v0.9 beta'], '1']);
      expect(await titles('?state=all&name=%25')).toEqual([[], '0']);
      expect(await titles('?state=all&limit=1&page=2')).toEqual([['v0.9 beta'], '2']);
    });

    it('are edited: state moves closed_at; empty title and null due date change nothing', async () => {
      const m = (await request<ApiMilestone>('POST', base, 'bob', { title: 'edit me', due_on: '2031-05-05T00:00:00Z' })).body;
      const closed = await request<ApiMilestone>('PATCH', `${base}/${m.id}`, 'bob', { state: 'closed', title: '', due_on: null });
      expect(closed.status).toBe(200);
      expect(closed.body).toMatchObject({ title: 'edit me', state: 'closed', due_on: '2031-05-05T00:00:00Z' });
      expect(closed.body.closed_at).not.toBeNull();
      const reopened = await request<ApiMilestone>('PATCH', `${base}/edit me`.replace(' ', '%20'), 'bob', { state: 'open', title: 'edited', description: 'now' });
      expect(reopened.body).toMatchObject({ title: 'edited', description: 'now', state: 'open', closed_at: null });
      expect((await request<ApiMilestone>('PATCH', `${base}/edited`, 'bob', { due_on: '2032-01-01T00:00:00+02:00' })).body.due_on).toBe('2031-12-31T22:00:00Z');
    });

    it('count their open and closed issues; deleting one leaves its issues without a milestone', async () => {
      const m = (await request<ApiMilestone>('POST', base, 'bob', { title: 'counted' })).body;
      const a = await createIssue('alice/pub', 'a', { milestone: m.id });
      await createIssue('alice/pub', 'b', { milestone: m.id });
      const c = await createIssue('alice/pub', 'c', { milestone: m.id });
      expect((await request<ApiMilestone>('GET', `${base}/counted`)).body).toMatchObject({ open_issues: 3, closed_issues: 0 });
      expect((await request('PATCH', `/repos/alice/pub/issues/${a}`, 'alice', { state: 'closed' })).status).toBe(201);
      expect((await request<ApiMilestone>('GET', `${base}/counted`)).body).toMatchObject({ open_issues: 2, closed_issues: 1 });
      const issue = await request<ApiIssue>('GET', `/repos/alice/pub/issues/${c}`);
      expect(issue.body.milestone).toMatchObject({ id: m.id, open_issues: 2, closed_issues: 1 });

      expect((await request('DELETE', `${base}/counted`, 'bob')).status).toBe(204);
      expect((await request('GET', `${base}/${m.id}`)).status).toBe(404);
      const orphan = await request<ApiIssue>('GET', `/repos/alice/pub/issues/${c}`);
      expect([orphan.status, orphan.body.milestone]).toEqual([200, null]);
    });

    it('refuse readers, bad bodies and malformed dates, changing nothing', async () => {
      const total = async () => (await request('GET', `${base}?state=all`)).headers.get('x-total-count');
      const before = await total();
      const reader = await request<ApiError>('POST', base, 'carol', { title: 'no' });
      expect([reader.status, reader.body.message]).toEqual([403, 'user should have a permission to write to a repo']);
      expect((await request('POST', base, undefined, { title: 'no' })).status).toBe(401);
      expect((await request('GET', base, 'dave')).status).toBe(200);
      expect((await request('GET', '/repos/alice/secret/milestones', 'dave')).status).toBe(404);
      const cases: Array<[unknown, number, string | undefined]> = [
        [{ title: 'x', due_on: 'tomorrow' }, 422, '[]: parsing time "\\"tomorrow\\"" as "\\"2006-01-02T15:04:05Z07:00\\""'],
        [{ title: 'x', due_on: '2030-13-45T00:00:00Z' }, 422, undefined],
        [{ title: 'x', due_on: 17 }, 422, undefined],
        [{ title: 42 }, 422, '[]: json: cannot unmarshal number into Go struct field CreateMilestoneOption.title of type string'],
        [{ title: '' }, 422, undefined],
        [{ title: '   ' }, 422, undefined],
        [{ title: 't'.repeat(256) }, 422, undefined],
        ['not json', 400, undefined],
      ];
      for (const [body, status, message] of cases) {
        const res = await request<ApiError>('POST', base, 'bob', body);
        expect([body, res.status]).toEqual([body, status]);
        if (message !== undefined) expect(res.body.message).toBe(message);
      }
      const target = (await request<ApiMilestone>('POST', base, 'bob', { title: 'target' })).body;
      expect((await request('PATCH', `${base}/${target.id}`, 'bob', { due_on: 'soon' })).status).toBe(422);
      expect((await request('PATCH', `${base}/${target.id}`, 'carol', { state: 'closed' })).status).toBe(403);
      expect((await request('DELETE', `${base}/${target.id}`, 'carol')).status).toBe(403);
      expect((await request('PATCH', `${base}/no-such`, 'bob', { state: 'closed' })).status).toBe(404);
      expect((await request('DELETE', `${base}/no-such`, 'bob')).status).toBe(404);
      expect((await request<ApiMilestone>('GET', `${base}/${target.id}`)).body.state).toBe('open');
      expect((await request('DELETE', `${base}/${target.id}`, 'bob')).status).toBe(204);
      expect(await total()).toBe(before);
    });
  });
});
