/**
 * Tracked times and stopwatches end to end: the built supervisor on PostgreSQL, driven over HTTP through the
 * validating client (every body checked against Gitea's description). Who may track time (the poster, writers,
 * assignees, or anyone when the repository says so), who sees whose times, the `user`, `since` and `before`
 * filters with X-Total-Count, deleting one time and resetting one's own, stopwatches (start, stop leaving a time,
 * delete, 409s) and the caller's own lists across repositories, which leave out repositories the caller can no
 * longer read. Bad input (zero, negative, fractional or huge times, malformed dates, oversized bodies, unknown
 * users) is a 4xx that changes nothing; a disabled time tracker answers as Gitea does.
 */
import type { ApiClient, ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';

jest.setTimeout(180_000);

/** Small enough to send a body past it cheaply. */
const MAX_BODY_SIZE = 64 * 1024;

interface ApiIssue {
  id: number;
  number: number;
  title: string;
}
interface ApiTrackedTime {
  id: number;
  created: string;
  time: number;
  user_id: number;
  user_name: string;
  issue_id: number;
  issue: ApiIssue | null;
}
interface ApiStopWatch {
  created: string;
  seconds: number;
  duration: string;
  issue_index: number;
  issue_title: string;
  repo_owner_name: string;
  repo_name: string;
}
interface ApiError {
  message: string;
  url: string;
  errors?: string[] | null;
}

describe('time tracking through the gateway', () => {
  let fx: Fixture;
  let api: ApiClient;

  const timesPath = (repo: string, index: number) => `/api/v1/repos/alice/${repo}/issues/${index}/times`;
  const add = (repo: string, index: number, user: string, body: unknown) =>
    api.request<ApiTrackedTime>('POST', timesPath(repo, index), { headers: user === 'root' ? fx.root : fx.as(user), body });
  const get = <T>(path: string, user?: string) =>
    api.request<T>('GET', path, { headers: user === undefined ? undefined : user === 'root' ? fx.root : fx.as(user) });
  const del = (path: string, user: string) => api.request<ApiError | string>('DELETE', path, { headers: user === 'root' ? fx.root : fx.as(user) });
  const post = (path: string, user: string) => api.request<ApiError | string>('POST', path, { headers: fx.as(user) });
  const summary = (res: ApiResponse<ApiTrackedTime[]>) => res.body.map((t) => `${t.user_name}:${t.time}`);

  async function createIssue(repo: string, user: string, title: string): Promise<number> {
    const res = await api.request<ApiIssue>('POST', `/api/v1/repos/alice/${repo}/issues`, { headers: fx.as(user), body: { title } });
    expect([title, res.status]).toEqual([title, 201]);
    return res.body.number;
  }

  async function editRepo(repo: string, body: unknown): Promise<void> {
    const res = await api.request('PATCH', `/api/v1/repos/alice/${repo}`, { headers: fx.as('alice'), body });
    expect([repo, res.status]).toEqual([repo, 200]);
  }

  beforeAll(async () => {
    fx = await startFixture('e2e_time_tracking', ['alice', 'bob', 'carol', 'dave'], { CAIRN__server__MAX_BODY_SIZE: String(MAX_BODY_SIZE) });
    api = fx.api;
    for (const [name, isPrivate] of [
      ['tt', false],
      ['open', false],
      ['off', false],
      ['secret', true],
      ['frozen', false],
    ] as const) {
      const res = await api.request('POST', '/api/v1/user/repos', { headers: fx.as('alice'), body: { name, private: isPrivate, auto_init: true } });
      expect([name, res.status]).toEqual([name, 201]);
    }
    // bob writes alice/tt and alice/secret; carol reads alice/tt; dave is nobody there.
    const collaborate = (repo: string, user: string, permission: string) =>
      api.request('PUT', `/api/v1/repos/alice/${repo}/collaborators/${user}`, { headers: fx.as('alice'), body: { permission } });
    expect((await collaborate('tt', 'bob', 'write')).status).toBe(204);
    expect((await collaborate('tt', 'carol', 'read')).status).toBe(204);
    expect((await collaborate('secret', 'bob', 'write')).status).toBe(204);
    expect(await createIssue('tt', 'alice', 'first')).toBe(1);
    expect(await createIssue('tt', 'carol', 'carol asks')).toBe(2);
    expect(await createIssue('open', 'alice', 'anyone')).toBe(1);
    expect(await createIssue('off', 'alice', 'no tracker')).toBe(1);
    expect(await createIssue('secret', 'alice', 'hidden')).toBe(1);
    expect(await createIssue('frozen', 'alice', 'cold')).toBe(1);
  });

  afterAll(async () => {
    await fx?.stop();
  });

  describe('adding time', () => {
    it('answers 200 with the TrackedTime and its issue', async () => {
      const res = await add('tt', 1, 'alice', { time: 3600, created: '2024-01-02T03:04:05Z' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ time: 3600, user_name: 'alice', created: '2024-01-02T03:04:05Z', issue: { number: 1, title: 'first' } });
      expect(res.body.issue_id).toBe(res.body.issue?.id);
    });

    it('takes the poster and writers; a reader or outsider who is neither gets a bare 403', async () => {
      expect((await add('tt', 2, 'carol', { time: 60, created: '2024-02-01T00:00:00Z' })).status).toBe(200);
      expect((await add('tt', 1, 'bob', { time: 120, created: '2024-03-01T00:00:00Z' })).status).toBe(200);
      for (const user of ['carol', 'dave']) {
        const refused = await add('tt', 1, user, { time: 60 });
        expect([user, refused.status, refused.body]).toEqual([user, 403, '']);
      }
    });

    it('takes anyone when the repository does not keep it to contributors', async () => {
      expect((await add('open', 1, 'dave', { time: 60 })).status).toBe(403);
      await editRepo('open', { has_issues: true, internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: false } });
      const res = await add('open', 1, 'dave', { time: 60 });
      expect([res.status, res.body.user_name]).toEqual([200, 'dave']);
    });

    it('honours user_name for repository admins only, and 404s a name that names nobody', async () => {
      const forBob = await add('tt', 2, 'alice', { time: 5, user_name: 'bob', created: '2024-04-01T00:00:00Z' });
      expect([forBob.status, forBob.body.user_name]).toEqual([200, 'bob']);
      const ignored = await add('tt', 2, 'bob', { time: 6, user_name: 'carol', created: '2024-04-02T00:00:00Z' });
      expect([ignored.status, ignored.body.user_name]).toEqual([200, 'bob']);
      const nobody = await add('tt', 2, 'alice', { time: 7, user_name: 'nobody-here' });
      expect([nobody.status, nobody.body]).toEqual([404, { message: 'user does not exist [uid: 0, name: nobody-here]', url: expect.any(String) }]);
    });

    it('refuses bad times, dates and bodies with 4xx and stores nothing', async () => {
      const before = await get<ApiTrackedTime[]>(`${timesPath('tt', 1)}?limit=50`, 'alice');
      const cases: Array<[unknown, number, string | RegExp]> = [
        [{ time: 0 }, 422, '[Time]: Required'],
        [{}, 422, '[Time]: Required'],
        [{ time: -60 }, 422, /time must be between 1 and/],
        [{ time: 1e12 }, 422, /time must be between 1 and/],
        [{ time: 1e30 }, 422, /time must be between 1 and/],
        [{ time: 1.5 }, 422, 'json: cannot unmarshal number 1.5 into Go struct field AddTimeOption.time of type int64'],
        [{ time: '60' }, 422, 'json: cannot unmarshal string into Go struct field AddTimeOption.time of type int64'],
        [{ time: 60, created: 'yesterday' }, 422, /parsing time/],
        [{ time: 60, user_name: 42 }, 422, /cannot unmarshal number into Go struct field AddTimeOption.user_name of type string/],
        [[1, 2], 422, /cannot unmarshal array/],
        ['{"time": ', 400, /^invalid JSON body/],
      ];
      for (const [body, status, message] of cases) {
        const res = await api.request<ApiError>('POST', timesPath('tt', 1), { headers: fx.as('alice'), body });
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
        expect(res.body.message).toMatch(message);
      }
      const huge = await api.request('POST', timesPath('tt', 1), { headers: fx.as('alice'), body: { time: 60, user_name: 'x'.repeat(MAX_BODY_SIZE) } });
      expect(huge.status).toBe(413);
      const after = await get<ApiTrackedTime[]>(`${timesPath('tt', 1)}?limit=50`, 'alice');
      // Compared by id and time: the issue's user shows its last sign-in, which these requests move.
      const ids = (res: ApiResponse<ApiTrackedTime[]>) => res.body.map((t) => `${t.id}:${t.time}`);
      expect(ids(after)).toEqual(ids(before));
      expect(after.headers.get('x-total-count')).toBe(before.headers.get('x-total-count'));
    });

    it('404s an unknown issue and needs a token', async () => {
      expect((await add('tt', 99, 'alice', { time: 60 })).status).toBe(404);
      expect((await add('tt', 0, 'alice', { time: 60 })).status).toBe(404);
      expect((await api.request('POST', timesPath('tt', 1), { body: { time: 60 } })).status).toBe(401);
      expect((await get(timesPath('tt', 1))).status).toBe(401);
      expect((await get('/api/v1/user/times')).status).toBe(401);
    });

    it('refuses an archived repository with 423', async () => {
      await editRepo('frozen', { archived: true });
      const res = await add('frozen', 1, 'alice', { time: 60 });
      expect([res.status, (res.body as unknown as ApiError).message]).toEqual([423, 'alice/frozen is archived']);
    });
  });

  describe('listing times', () => {
    it("shows writers everyone's times, oldest first, with X-Total-Count; others only their own", async () => {
      const all = await get<ApiTrackedTime[]>(timesPath('tt', 2), 'alice');
      expect([all.status, summary(all), all.headers.get('x-total-count')]).toEqual([200, ['carol:60', 'bob:5', 'bob:6'], '3']);
      const page = await get<ApiTrackedTime[]>(`${timesPath('tt', 2)}?limit=1&page=2`, 'bob');
      expect([summary(page), page.headers.get('x-total-count')]).toEqual([['bob:5'], '3']);
      const own = await get<ApiTrackedTime[]>(timesPath('tt', 2), 'carol');
      expect([summary(own), own.headers.get('x-total-count')]).toEqual([['carol:60'], '1']);
    });

    it('filters by user (issue managers only) and by creation time', async () => {
      const bobs = await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=bob', 'alice');
      expect(summary(bobs)).toEqual(['bob:120', 'bob:5', 'bob:6']);
      const denied = await get<ApiError>('/api/v1/repos/alice/tt/times?user=alice', 'carol');
      expect([denied.status, denied.body.message]).toEqual([403, 'query by user not allowed; not enough rights']);
      expect((await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=carol', 'carol')).status).toBe(200);
      const unknown = await get<ApiError>(`${timesPath('tt', 1)}?user=nobody-here`, 'alice');
      expect([unknown.status, unknown.body]).toEqual([404, { message: 'user does not exist [uid: 0, name: nobody-here]', url: expect.any(String) }]);

      const windowed = await get<ApiTrackedTime[]>(
        '/api/v1/repos/alice/tt/times?since=2024-02-01T00:00:00Z&before=2024-04-01T00:00:00%2B00:00',
        'alice',
      );
      expect([summary(windowed), windowed.headers.get('x-total-count')]).toEqual([['carol:60', 'bob:120', 'bob:5'], '3']);
      for (const bad of ['since=yesterday', 'before=2024-13-01T00:00:00Z', 'since=2024-02-30T00:00:00Z']) {
        const res = await get<ApiError>(`/api/v1/repos/alice/tt/times?${bad}`, 'alice');
        expect([bad, res.status]).toEqual([bad, 422]);
        expect(res.body.message).toMatch(/^parsing time /);
      }
    });

    it('serves the deprecated per-user list to that user and repository admins only', async () => {
      const mine = await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times/bob', 'bob');
      expect(summary(mine)).toEqual(['bob:120', 'bob:5', 'bob:6']);
      expect(summary(await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times/bob', 'alice'))).toEqual(['bob:120', 'bob:5', 'bob:6']);
      const denied = await get<ApiError>('/api/v1/repos/alice/tt/times/alice', 'bob');
      expect([denied.status, denied.body.message]).toEqual([403, 'query by user not allowed; not enough rights']);
      const unknown = await get<ApiError>('/api/v1/repos/alice/tt/times/nobody-here', 'alice');
      expect([unknown.status, unknown.body.errors]).toEqual([404, ['user does not exist [uid: 0, name: nobody-here]']]);
    });

    it("lists the caller's own times across repositories", async () => {
      const mine = await get<ApiTrackedTime[]>('/api/v1/user/times', 'dave');
      expect([summary(mine), mine.body[0].issue?.title, mine.headers.get('x-total-count')]).toEqual([['dave:60'], 'anyone', '1']);
      const windowed = await get<ApiTrackedTime[]>('/api/v1/user/times?before=2024-03-15T00:00:00Z', 'bob');
      expect(summary(windowed)).toEqual(['bob:120']);
    });
  });

  describe('deleting and resetting', () => {
    it('deletes one time once; another user\'s needs a site admin; another issue\'s is 404', async () => {
      const own = await add('tt', 1, 'bob', { time: 11 });
      const path = `${timesPath('tt', 1)}/${own.body.id}`;
      expect((await del(`${timesPath('tt', 2)}/${own.body.id}`, 'bob')).status).toBe(404);
      expect((await del(path, 'bob')).status).toBe(204);
      const again = await del(path, 'bob');
      expect([again.status, again.body]).toEqual([404, { errors: null, message: 'tracked time was already deleted', url: expect.any(String) }]);

      const alices = await add('tt', 1, 'alice', { time: 12 });
      const alicePath = `${timesPath('tt', 1)}/${alices.body.id}`;
      const refused = await del(alicePath, 'bob');
      expect([refused.status, refused.body]).toEqual([403, '']);
      expect((await del(alicePath, 'root')).status).toBe(204);
      expect((await del(`${timesPath('tt', 1)}/999999`, 'alice')).status).toBe(404);
    });

    it("resets the caller's own times on the issue; with none it is 404", async () => {
      expect((await del(timesPath('tt', 2), 'bob')).status).toBe(204);
      expect(summary(await get<ApiTrackedTime[]>(timesPath('tt', 2), 'alice'))).toEqual(['carol:60']);
      const none = await del(timesPath('tt', 2), 'bob');
      expect([none.status, none.body]).toEqual([404, { message: 'tracked_time does not exist', url: expect.any(String) }]);
    });
  });

  describe('stopwatches', () => {
    const swPath = (repo: string, index: number, action: string) => `/api/v1/repos/alice/${repo}/issues/${index}/stopwatch/${action}`;

    it('start, start again, list, stop (a time), stop again', async () => {
      const started = await post(swPath('tt', 1, 'start'), 'bob');
      expect([started.status, started.body]).toEqual([201, '']);
      const again = await post(swPath('tt', 1, 'start'), 'bob');
      expect([again.status, (again.body as ApiError).message]).toEqual([409, 'cannot start a stopwatch again if it already exists']);

      const listed = await get<ApiStopWatch[]>('/api/v1/user/stopwatches', 'bob');
      expect(listed.headers.get('x-total-count')).toBe('1');
      expect(listed.body).toEqual([
        {
          created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          seconds: expect.any(Number),
          duration: expect.any(String),
          issue_index: 1,
          issue_title: 'first',
          repo_owner_name: 'alice',
          repo_name: 'tt',
        },
      ]);

      const before = (await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=bob&limit=50', 'bob')).body.length;
      const stopped = await post(swPath('tt', 1, 'stop'), 'bob');
      expect([stopped.status, stopped.body]).toEqual([201, '']);
      const times = (await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=bob&limit=50', 'bob')).body;
      expect(times).toHaveLength(before + 1);
      expect(times[times.length - 1].time).toBeGreaterThanOrEqual(1);
      const stopAgain = await post(swPath('tt', 1, 'stop'), 'bob');
      expect([stopAgain.status, (stopAgain.body as ApiError).message]).toEqual([409, 'cannot stop a non-existent stopwatch']);
      expect((await get<ApiStopWatch[]>('/api/v1/user/stopwatches', 'bob')).body).toEqual([]);
    });

    it('deletes a running stopwatch without a time; none to delete is 409', async () => {
      const before = (await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=bob&limit=50', 'bob')).body.length;
      expect((await post(swPath('tt', 2, 'start'), 'bob')).status).toBe(201);
      expect((await del(swPath('tt', 2, 'delete'), 'bob')).status).toBe(204);
      const none = await del(swPath('tt', 2, 'delete'), 'bob');
      expect([none.status, (none.body as ApiError).message]).toEqual([409, 'cannot cancel a non-existent stopwatch']);
      expect((await get<ApiTrackedTime[]>('/api/v1/repos/alice/tt/times?user=bob&limit=50', 'bob')).body).toHaveLength(before);
    });

    it('needs issue write: the poster who only reads gets a bare 403; an unknown issue is 404', async () => {
      const refused = await post(swPath('tt', 2, 'start'), 'carol');
      expect([refused.status, refused.body]).toEqual([403, '']);
      expect((await post(swPath('tt', 77, 'start'), 'bob')).status).toBe(404);
      expect((await api.request('POST', swPath('tt', 1, 'start'))).status).toBe(401);
    });
  });

  describe('a disabled time tracker', () => {
    beforeAll(async () => {
      await editRepo('off', { has_issues: true, internal_tracker: { enable_time_tracker: false, allow_only_contributors_to_track_time: true } });
    });

    it('answers as Gitea does on each route', async () => {
      const issueList = await get<ApiError>(timesPath('off', 1), 'alice');
      expect([issueList.status, issueList.body.message]).toEqual([404, 'Timetracker is disabled']);
      const repoList = await get<ApiError>('/api/v1/repos/alice/off/times', 'alice');
      expect([repoList.status, repoList.body.message]).toEqual([400, 'time tracking disabled']);
      const added = await add('off', 1, 'alice', { time: 60 });
      expect([added.status, (added.body as unknown as ApiError).message]).toEqual([400, 'time tracking disabled']);
      expect((await del(timesPath('off', 1), 'alice')).status).toBe(400);
      const stopwatch = await post(`/api/v1/repos/alice/off/issues/1/stopwatch/start`, 'alice');
      expect([stopwatch.status, stopwatch.body]).toEqual([403, '']);
    });
  });

  describe("the caller's own lists and repositories they can no longer read", () => {
    it('leave them out, counts included', async () => {
      expect((await add('secret', 1, 'bob', { time: 77 })).status).toBe(200);
      expect((await post('/api/v1/repos/alice/secret/issues/1/stopwatch/start', 'bob')).status).toBe(201);
      const withSecret = await get<ApiTrackedTime[]>('/api/v1/user/times?limit=50', 'bob');
      expect(summary(withSecret)).toContain('bob:77');
      expect((await get<ApiStopWatch[]>('/api/v1/user/stopwatches', 'bob')).body.map((s) => s.repo_name)).toEqual(['secret']);

      expect((await api.request('DELETE', '/api/v1/repos/alice/secret/collaborators/bob', { headers: fx.as('alice') })).status).toBe(204);
      const times = await get<ApiTrackedTime[]>('/api/v1/user/times?limit=50', 'bob');
      expect(summary(times)).not.toContain('bob:77');
      expect(times.body.length).toBeGreaterThan(0);
      expect(times.body.every((t) => t.issue?.title !== 'hidden')).toBe(true);
      expect(times.headers.get('x-total-count')).toBe(String(Number(withSecret.headers.get('x-total-count')) - 1));
      const stopwatches = await get<ApiStopWatch[]>('/api/v1/user/stopwatches', 'bob');
      expect([stopwatches.body, stopwatches.headers.get('x-total-count')]).toEqual([[], '0']);
      expect((await get('/api/v1/repos/alice/secret/times', 'bob')).status).toBe(404);
    });
  });
});
