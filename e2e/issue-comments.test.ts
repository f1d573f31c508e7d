/**
 * Issue comments and issue subscriptions end to end: the built supervisor driven over HTTP through the validating
 * client (every body checked against Gitea's description). Comments: readers comment (201), the poster or an
 * issue writer edits (200) and deletes (204), anyone else gets Gitea's bare 403; a comment of another repository
 * is 404; lists with `since`/`before` (422 on a malformed time) and the repository-wide list's pages; archived
 * repositories refuse new comments and edits (423); private repositories' comments are invisible; bad input is a
 * 4xx with nothing changed. Subscriptions: the list (no token), the check (Gitea's WatchInfo; poster, commenters and
 * repository watchers are subscribed), PUT/DELETE for oneself or by a site admin (201 changed, 200 unchanged).
 * A deleted user's comments stay by default (shown as the Ghost user) and go when
 * `[service] USER_DELETE_WITH_COMMENTS_MAX_TIME` says the account was young.
 */
import { type ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(240_000);

interface ApiUser {
  id: number;
  login: string;
}
interface ApiComment {
  id: number;
  html_url: string;
  pull_request_url: string;
  issue_url: string;
  user: ApiUser;
  body: string;
  assets: unknown[];
  created_at: string;
  updated_at: string;
}
interface ApiIssue {
  id: number;
  number: number;
  comments: number;
  updated_at: string;
  html_url: string;
}
interface WatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: unknown;
  created_at: string;
  url: string;
  repository_url: string;
}

function helpers(f: Fixture) {
  const call = <T = unknown>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    f.api.request<T>(method, `/api/v1${path}`, { headers, body });
  const createRepo = async (owner: string, name: string, isPrivate = false) => {
    const made = await call('POST', '/user/repos', f.as(owner), { name, private: isPrivate, auto_init: true });
    expect([name, made.status]).toEqual([name, 201]);
  };
  const createIssue = async (owner: string, repo: string, who: Record<string, string>, title = 'a bug'): Promise<ApiIssue> => {
    const made = await call<ApiIssue>('POST', `/repos/${owner}/${repo}/issues`, who, { title, body: 'it breaks' });
    expect(made.status).toBe(201);
    return made.body;
  };
  const comment = (path: string, who: Record<string, string> | undefined, body: unknown) => call<ApiComment>('POST', `${path}/comments`, who, body);
  return { call, createRepo, createIssue, comment };
}

describe('issue comments and subscriptions through the gateway', () => {
  let f: Fixture;
  let h: ReturnType<typeof helpers>;
  let issue: ApiIssue;
  const base = '/repos/alice/tracker';
  const issuePath = `${base}/issues/1`;

  beforeAll(async () => {
    f = await startFixture('e2e_issue_comments', ['alice', 'bob', 'carol', 'dave', 'erin']);
    h = helpers(f);
    await h.createRepo('alice', 'tracker');
    await h.createRepo('alice', 'other');
    await h.createRepo('alice', 'secret', true);
    expect((await h.call('PUT', `${base}/collaborators/bob`, f.as('alice'), { permission: 'write' })).status).toBe(204);
    issue = await h.createIssue('alice', 'tracker', f.as('alice'));
    expect(issue.number).toBe(1);
  });

  afterAll(async () => {
    await f?.stop();
  });

  describe('comments', () => {
    let carols: ApiComment;

    test('a signed-in reader comments: 201, Gitea\'s Comment, and the issue counts it and moves its updated time', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const made = await h.comment(issuePath, f.as('carol'), { body: 'I see it too' });
      expect(made.status).toBe(201);
      carols = made.body;
      // The validating client has checked the shape; these are the values.
      expect(carols).toMatchObject({
        body: 'I see it too',
        user: { login: 'carol' },
        issue_url: issue.html_url,
        pull_request_url: '',
        html_url: `${issue.html_url}#issuecomment-${carols.id}`,
        assets: [],
      });
      const after = await h.call<ApiIssue>('GET', issuePath);
      expect(after.body.comments).toBe(1);
      expect(Date.parse(after.body.updated_at)).toBeGreaterThan(Date.parse(issue.updated_at));
    });

    test('a comment mentioning someone makes the issue one they are mentioned in', async () => {
      const mentioned = (login: string) => h.call<ApiIssue[]>('GET', `${base}/issues?state=all&mentioned_by=${login}`);
      expect((await mentioned('erin')).body).toEqual([]);
      expect((await h.comment(issuePath, f.as('carol'), { body: 'ping @erin, not `@bob`' })).status).toBe(201);
      expect((await mentioned('erin')).body.map((i) => i.number)).toEqual([1]);
      expect((await mentioned('bob')).body).toEqual([]);
      const list = await h.call<ApiComment[]>('GET', `${issuePath}/comments`);
      const ping = list.body.find((c) => c.body.startsWith('ping'));
      expect((await h.call('DELETE', `${base}/issues/comments/${ping?.id}`, f.as('carol'))).status).toBe(204);
    });

    test('bad requests change nothing: no token 401, no body 422, malformed JSON 400, oversized 422, unknown issue 404', async () => {
      expect((await h.comment(issuePath, undefined, { body: 'anon' })).status).toBe(401);
      const missing = await h.comment(issuePath, f.as('carol'), {});
      expect([missing.status, (missing.body as unknown as { message: string }).message]).toEqual([422, '[Body]: Required']);
      const wrongType = await h.comment(issuePath, f.as('carol'), { body: 42 });
      expect(wrongType.status).toBe(422);
      expect((await h.comment(issuePath, f.as('carol'), '{"body": ')).status).toBe(400);
      // Over 1 MiB: a departure, 422 where Gitea stores it (docs/api.md); still under MAX_BODY_SIZE, so not a 413.
      const huge = await h.comment(issuePath, f.as('carol'), { body: 'x'.repeat(1024 * 1024 + 1) });
      expect(huge.status).toBe(422);
      expect((await h.comment(`${base}/issues/999`, f.as('carol'), { body: 'x' })).status).toBe(404);
      expect((await h.comment(`${base}/issues/-1`, f.as('carol'), { body: 'x' })).status).toBe(404);
      const list = await h.call<ApiComment[]>('GET', `${issuePath}/comments`);
      expect(list.body.map((c) => c.body)).toEqual(['I see it too']);
    });

    test('the poster or an issue writer edits; anyone else gets a bare 403', async () => {
      const byOther = await h.call('PATCH', `${base}/issues/comments/${carols.id}`, f.as('dave'), { body: 'hijacked' });
      expect([byOther.status, byOther.body]).toEqual([403, '']);
      expect((await h.call('PATCH', `${base}/issues/comments/${carols.id}`, undefined, { body: 'anon' })).status).toBe(401);
      const own = await h.call<ApiComment>('PATCH', `${base}/issues/comments/${carols.id}`, f.as('carol'), { body: 'I see it too (edited)' });
      expect([own.status, own.body.body]).toEqual([200, 'I see it too (edited)']);
      const byWriter = await h.call<ApiComment>('PATCH', `${issuePath}/comments/${carols.id}`, f.as('bob'), { body: 'tidied by bob' });
      expect([byWriter.status, byWriter.body.body, byWriter.body.user.login]).toEqual([200, 'tidied by bob', 'carol']);
      const empty = await h.call('PATCH', `${base}/issues/comments/${carols.id}`, f.as('carol'), { body: '' });
      expect(empty.status).toBe(422);
      const got = await h.call<ApiComment>('GET', `${base}/issues/comments/${carols.id}`);
      expect([got.status, got.body.body]).toEqual([200, 'tidied by bob']);
    });

    test("a comment of another repository is 404 there, and stays", async () => {
      const otherIssue = await h.createIssue('alice', 'other', f.as('alice'));
      const foreign = await h.comment(`/repos/alice/other/issues/${otherIssue.number}`, f.as('alice'), { body: 'elsewhere' });
      expect(foreign.status).toBe(201);
      const id = foreign.body.id;
      expect((await h.call('GET', `${base}/issues/comments/${id}`)).status).toBe(404);
      expect((await h.call('PATCH', `${base}/issues/comments/${id}`, f.as('alice'), { body: 'x' })).status).toBe(404);
      expect((await h.call('DELETE', `${base}/issues/comments/${id}`, f.as('alice'))).status).toBe(404);
      expect((await h.call('DELETE', `${issuePath}/comments/${id}`, f.as('alice'))).status).toBe(404);
      expect((await h.call<ApiComment>('GET', `/repos/alice/other/issues/comments/${id}`)).body.body).toBe('elsewhere');
      expect((await h.call('GET', `${base}/issues/comments/0`)).status).toBe(404);
      expect((await h.call('GET', `${base}/issues/comments/abc`)).status).toBe(404);
    });

    test('lists: oldest first, since/before on the updated time, malformed times 422, the repository list in pages', async () => {
      const second = await h.comment(issuePath, f.as('bob'), { body: 'second' });
      expect(second.status).toBe(201);
      const list = await h.call<ApiComment[]>('GET', `${issuePath}/comments`);
      expect(list.body.map((c) => c.body)).toEqual(['tidied by bob', 'second']);
      expect(list.headers.get('x-total-count')).toBe('2');

      const future = new Date(Date.now() + 3_600_000).toISOString();
      const since = await h.call<ApiComment[]>('GET', `${issuePath}/comments?since=${encodeURIComponent(future)}`);
      expect([since.status, since.body]).toEqual([200, []]);
      const before = await h.call<ApiComment[]>('GET', `${issuePath}/comments?before=${encodeURIComponent(future)}`);
      expect(before.body.length).toBe(2);
      const bad = await h.call<{ message: string }>('GET', `${issuePath}/comments?since=yesterday`);
      expect([bad.status, bad.body.message]).toEqual([422, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"']);
      expect((await h.call('GET', `${base}/issues/comments?before=2024-13-01T00:00:00Z`)).status).toBe(422);

      const page = await h.call<ApiComment[]>('GET', `${base}/issues/comments?limit=1&page=2`);
      expect([page.status, page.body.map((c) => c.body), page.headers.get('x-total-count')]).toEqual([200, ['second'], '2']);
      const repoSince = await h.call<ApiComment[]>('GET', `${base}/issues/comments?since=${encodeURIComponent(future)}`);
      expect([repoSince.body, repoSince.headers.get('x-total-count')]).toEqual([[], '0']);
    });

    test('the poster or an issue writer deletes (204); anyone else gets a bare 403', async () => {
      const mine = await h.comment(issuePath, f.as('erin'), { body: 'delete me' });
      const byOther = await h.call('DELETE', `${base}/issues/comments/${mine.body.id}`, f.as('carol'));
      expect([byOther.status, byOther.body]).toEqual([403, '']);
      expect((await h.call('DELETE', `${base}/issues/comments/${mine.body.id}`, f.as('erin'))).status).toBe(204);
      expect((await h.call('GET', `${base}/issues/comments/${mine.body.id}`)).status).toBe(404);
      const theirs = await h.comment(issuePath, f.as('erin'), { body: 'writer removes this' });
      expect((await h.call('DELETE', `${issuePath}/comments/${theirs.body.id}`, f.as('bob'))).status).toBe(204);
      expect((await h.call('DELETE', `${issuePath}/comments/${theirs.body.id}`, f.as('bob'))).status).toBe(404);
      expect((await h.call<ApiIssue>('GET', issuePath)).body.comments).toBe(2);
    });

    test('a locked issue takes comments from issue writers only', async () => {
      const locked = await h.createIssue('alice', 'tracker', f.as('carol'), 'heated');
      const path = `${base}/issues/${locked.number}`;
      expect((await h.call('PUT', `${path}/lock`, f.as('alice'), { lock_reason: 'too heated' })).status).toBe(204);
      const refused = await h.comment(path, f.as('carol'), { body: 'but I posted it' });
      expect([refused.status, (refused.body as unknown as { message: string }).message]).toEqual([403, 'You cannot comment on a locked issue.']);
      expect((await h.comment(path, f.as('bob'), { body: 'calm down' })).status).toBe(201);
      expect((await h.comment(path, f.root, { body: 'site admin' })).status).toBe(201);
      expect((await h.call<ApiComment[]>('GET', `${path}/comments`)).body.map((c) => c.body)).toEqual(['calm down', 'site admin']);
    });

    test("a private repository's comments are invisible to those who may not read it", async () => {
      const secret = await h.createIssue('alice', 'secret', f.as('alice'));
      const made = await h.comment(`/repos/alice/secret/issues/${secret.number}`, f.as('alice'), { body: 'hush' });
      expect(made.status).toBe(201);
      for (const who of [undefined, f.as('carol')]) {
        expect((await h.call('GET', `/repos/alice/secret/issues/${secret.number}/comments`, who)).status).toBe(404);
        expect((await h.call('GET', '/repos/alice/secret/issues/comments', who)).status).toBe(404);
        expect((await h.call('GET', `/repos/alice/secret/issues/comments/${made.body.id}`, who)).status).toBe(404);
      }
      expect((await h.comment(`/repos/alice/secret/issues/${secret.number}`, f.as('carol'), { body: 'let me in' })).status).toBe(404);
      expect((await h.call<ApiComment[]>('GET', '/repos/alice/secret/issues/comments', f.as('alice'))).body.map((c) => c.body)).toEqual(['hush']);
    });

    test('an archived repository refuses new comments and edits (423) but not deletion', async () => {
      await h.createRepo('alice', 'attic');
      const old = await h.createIssue('alice', 'attic', f.as('alice'));
      const kept = await h.comment(`/repos/alice/attic/issues/${old.number}`, f.as('alice'), { body: 'before archiving' });
      const gone = await h.comment(`/repos/alice/attic/issues/${old.number}`, f.as('alice'), { body: 'to delete' });
      expect((await h.call('PATCH', '/repos/alice/attic', f.as('alice'), { archived: true })).status).toBe(200);
      const refused = await h.comment(`/repos/alice/attic/issues/${old.number}`, f.as('alice'), { body: 'after' });
      expect([refused.status, (refused.body as unknown as { message: string }).message]).toEqual([423, 'alice/attic is archived']);
      expect((await h.call('PATCH', `/repos/alice/attic/issues/comments/${kept.body.id}`, f.as('alice'), { body: 'x' })).status).toBe(423);
      expect((await h.call('DELETE', `/repos/alice/attic/issues/comments/${gone.body.id}`, f.as('alice'))).status).toBe(204);
      const left = await h.call<ApiComment[]>('GET', `/repos/alice/attic/issues/${old.number}/comments`);
      expect(left.body.map((c) => c.body)).toEqual(['before archiving']);
    });
  });

  describe('subscriptions', () => {
    const subs = `${issuePath}/subscriptions`;
    const check = async (who: string) => {
      const res = await h.call<WatchInfo>('GET', `${subs}/check`, f.as(who));
      expect(res.status).toBe(200);
      return res.body;
    };
    const listed = async (query = '') => {
      const res = await h.call<ApiUser[]>('GET', `${subs}${query}`);
      expect(res.status).toBe(200);
      return { logins: res.body.map((u) => u.login), total: res.headers.get('x-total-count') };
    };

    test("the check is Gitea's WatchInfo; the poster, commenters and repository watchers are subscribed", async () => {
      const info = await check('carol');
      expect(info).toEqual({
        subscribed: true,
        ignored: false,
        reason: null,
        created_at: expect.any(String),
        url: expect.stringMatching(/\/api\/v1\/repos\/alice\/tracker\/issues\/1\/subscriptions$/),
        repository_url: expect.stringMatching(/\/api\/v1\/repos\/alice\/tracker$/),
      });
      expect(Date.parse(info.created_at)).toBeLessThanOrEqual(Date.parse(issue.updated_at));
      // dave has not taken part and does not watch the repository.
      expect((await check('dave')).subscribed).toBe(false);
      expect((await h.call('PUT', `${base}/subscription`, f.as('dave'))).status).toBe(200);
      expect((await check('dave')).subscribed).toBe(true);
      expect((await h.call('DELETE', `${base}/subscription`, f.as('dave'))).status).toBe(204);
      expect(await check('dave')).toMatchObject({ subscribed: false, ignored: true });
      expect((await h.call('GET', `${subs}/check`)).status).toBe(401);
    });

    test('PUT and DELETE: 201 when changed, 200 when already so; the list holds explicit subscriptions', async () => {
      expect(await listed()).toEqual({ logins: [], total: '0' });
      // carol commented, so she is subscribed already: nothing is written.
      expect((await h.call('PUT', `${subs}/carol`, f.as('carol'))).status).toBe(200);
      expect((await h.call('DELETE', `${subs}/carol`, f.as('carol'))).status).toBe(201);
      expect((await check('carol')).subscribed).toBe(false);
      expect((await h.call('DELETE', `${subs}/carol`, f.as('carol'))).status).toBe(200);
      expect((await h.call('PUT', `${subs}/carol`, f.as('carol'))).status).toBe(201);
      expect((await h.call('PUT', `${subs}/dave`, f.as('dave'))).status).toBe(201);
      expect(await listed()).toEqual({ logins: ['carol', 'dave'], total: '2' });
      expect(await listed('?limit=1&page=2')).toEqual({ logins: ['dave'], total: '2' });
    });

    test("someone else's subscription: 403 unless a site admin; unknown users and issues 404; a token is needed", async () => {
      const refused = await h.call<{ message: string }>('PUT', `${subs}/erin`, f.as('carol'));
      expect([refused.status, refused.body.message]).toEqual([403, 'carol is not permitted to change subscriptions for erin']);
      // Repository admins neither (Gitea checks site administrators only).
      expect((await h.call('PUT', `${subs}/erin`, f.as('alice'))).status).toBe(403);
      expect((await h.call('PUT', `${subs}/erin`, f.root)).status).toBe(201);
      expect((await h.call('PUT', `${subs}/nobody-here`, f.as('carol'))).status).toBe(404);
      expect((await h.call('PUT', `${base}/issues/999/subscriptions/carol`, f.as('carol'))).status).toBe(404);
      expect((await h.call('PUT', `${subs}/carol`)).status).toBe(401);
      expect((await h.call('DELETE', `${subs}/carol`)).status).toBe(401);
      expect((await listed()).logins).toEqual(['carol', 'dave', 'erin']);
      expect((await h.call('GET', '/repos/alice/secret/issues/1/subscriptions', f.as('carol'))).status).toBe(404);
    });
  });

  test("a deleted user's comments stay by default, shown as the Ghost user; their subscriptions go", async () => {
    const made = await h.comment(issuePath, f.as('dave'), { body: 'dave was here' });
    expect(made.status).toBe(201);
    expect((await h.call('DELETE', '/admin/users/dave', f.root)).status).toBe(204);
    const ghostly = await waitFor('dave to leave the subscribers', async () => {
      const subscribers = await h.call<ApiUser[]>('GET', `${issuePath}/subscriptions`);
      return subscribers.headers.get('x-total-count') === '2' ? subscribers : undefined;
    });
    expect(ghostly.body.map((u) => u.login)).toEqual(['carol', 'erin']);
    const got = await h.call<ApiComment>('GET', `${base}/issues/comments/${made.body.id}`);
    expect([got.status, got.body.body, got.body.user.id, got.body.user.login]).toEqual([200, 'dave was here', -1, 'Ghost']);
  });
});

describe('USER_DELETE_WITH_COMMENTS_MAX_TIME set', () => {
  let f: Fixture;
  let h: ReturnType<typeof helpers>;

  beforeAll(async () => {
    f = await startFixture('e2e_issue_comments_purge', ['frank', 'gina'], { CAIRN__service__USER_DELETE_WITH_COMMENTS_MAX_TIME: '1h' });
    h = helpers(f);
  });
  afterAll(async () => {
    await f?.stop();
  });

  test("a young account's comments go with it; the issue's count follows", async () => {
    await h.createRepo('frank', 'board');
    const issue = await h.createIssue('frank', 'board', f.as('frank'));
    const path = `/repos/frank/board/issues/${issue.number}`;
    expect((await h.comment(path, f.as('gina'), { body: 'gina 1' })).status).toBe(201);
    expect((await h.comment(path, f.as('gina'), { body: 'gina 2' })).status).toBe(201);
    expect((await h.comment(path, f.as('frank'), { body: 'frank stays' })).status).toBe(201);
    expect((await h.call('DELETE', '/admin/users/gina', f.root)).status).toBe(204);
    const left = await waitFor("gina's comments to go", async () => {
      const list = await h.call<ApiComment[]>('GET', `${path}/comments`);
      return list.body.length === 1 ? list.body : undefined;
    });
    expect(left.map((c) => c.body)).toEqual(['frank stays']);
    expect((await h.call<ApiIssue>('GET', path)).body.comments).toBe(1);
  });
});
