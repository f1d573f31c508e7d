/**
 * The notifications API end to end (routers/api/v1/notify): the built supervisor, issues and a pull request made
 * through the API by alice in her public repositories, and bob's (and carol's) threads about them seeded straight
 * into notifications' table — the event consumers that write threads are tested on their own — so every filter can
 * be checked against known statuses and times. bob reads the repositories without watching or taking part, so no
 * consumer touches his threads while alice works. Every response is checked against Gitea's description.
 */
import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { giteaApi } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { type PullWork, demoRepository, pullWork } from './support/pull-work';

jest.setTimeout(180_000);

interface Thread {
  id: number;
  repository?: { full_name: string; permissions?: Record<string, boolean> };
  subject: { title: string; url: string; latest_comment_url: string; html_url: string; latest_comment_html_url: string; type: string; state: string };
  unread: boolean;
  pinned: boolean;
  updated_at: string;
  url: string;
}

const UNREAD = 1;
const READ = 2;
const PINNED = 3;

describe('notifications API', () => {
  let fixture: Fixture;
  let w: PullWork;
  let root: string;
  /** Thread ids by name (see beforeAll). */
  const ids: Record<string, number> = {};
  let commentId: number;
  let pullIndex: number;
  const headers: Record<string, Record<string, string>> = {};

  const call = <T = unknown>(method: string, path: string, as: Record<string, string> | undefined, body?: unknown) =>
    fixture.api.request<T>(method, `/api/v1${path}`, { headers: as, body });

  /**
   * A marking call, whose 205 carries the threads as Gitea's does: fetch drops a 205's body (a null-body status to
   * it), so this reads the answer with node:http and checks it against Gitea's description as the client does.
   */
  function mark<T>(method: 'PUT' | 'PATCH', path: string, as: Record<string, string>): Promise<{ status: number; body: T }> {
    const url = new URL(`${fixture.instance.httpUrl}/api/v1${path}`);
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers: as }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const text = Buffer.concat(chunks).toString('utf8');
            const body: unknown = text === '' ? undefined : JSON.parse(text);
            const status = res.statusCode ?? 0;
            giteaApi.expectResponse({ method, path: `/api/v1${path}`, status, body });
            resolve({ status, body: body as T });
          } catch (error) {
            reject(error);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
  }
  const bob = () => headers.bob;
  const names = (threads: Thread[]) => threads.map((thread) => Object.entries(ids).find(([, id]) => id === thread.id)?.[0] ?? `#${thread.id}`);

  async function createIssue(repo: string, title: string): Promise<{ id: number; number: number }> {
    const made = await call<{ id: number; number: number }>('POST', `/repos/${repo}/issues`, fixture.as('alice'), { title });
    if (made.status !== 201) throw new Error(`issue ${title}: ${made.status}`);
    return made.body;
  }

  async function token(user: string, name: string, scopes: string[]): Promise<Record<string, string>> {
    const made = await call<{ sha1: string }>('POST', `/users/${user}/tokens`, fixture.as(user), { name, scopes });
    if (made.status !== 201) throw new Error(`token ${name}: ${made.status}`);
    return { Authorization: `token ${made.body.sha1}` };
  }

  async function seed(rows: { name: string; user: string; repoId: number; type: number; issue: { id: number; number: number }; status: number; at: string; commentId?: number }[]) {
    const client = new Client({ connectionString: fixture.database.url });
    await client.connect();
    try {
      const users = await client.query<{ id: string; lower_name: string }>('SELECT id, lower_name FROM accounts.users WHERE lower_name = ANY($1)', [['bob', 'carol']]);
      const userIds = new Map(users.rows.map((row) => [row.lower_name, Number(row.id)]));
      for (const row of rows) {
        const inserted = await client.query<{ id: string }>(
          `INSERT INTO notifications.notification_threads (user_id, repo_id, subject_type, issue_id, issue_index, comment_id, status, updated_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8) RETURNING id`,
          [userIds.get(row.user), row.repoId, row.type, row.issue.id, row.issue.number, row.commentId ?? 0, row.status, row.at],
        );
        ids[row.name] = Number(inserted.rows[0].id);
      }
    } finally {
      await client.end();
    }
  }

  async function repoId(repo: string): Promise<number> {
    const got = await call<{ id: number }>('GET', `/repos/${repo}`, fixture.as('alice'));
    return got.body.id;
  }

  beforeAll(async () => {
    fixture = await startFixture('e2e_notifications_api', ['alice', 'bob', 'carol']);
    w = await pullWork(fixture);
    const clone = await demoRepository(w, fixture);
    root = (await call<{ html_url: string }>('GET', '/repos/alice/demo', fixture.as('alice'))).body.html_url.replace(/alice\/demo$/, '');
    for (const name of ['other', 'later']) {
      const made = await call('POST', '/user/repos', fixture.as('alice'), { name, auto_init: true });
      if (made.status !== 201) throw new Error(`create alice/${name}: ${made.status}`);
    }
    const first = await createIssue('alice/demo', 'first issue');
    const second = await createIssue('alice/demo', 'second issue');
    const toClose = await createIssue('alice/demo', 'closed soon');
    const elsewhere = await createIssue('alice/other', 'elsewhere');
    const hidden = await createIssue('alice/later', 'hidden soon');
    const comment = await call<{ id: number }>('POST', `/repos/alice/other/issues/${elsewhere.number}/comments`, fixture.as('alice'), { body: 'a reply' });
    commentId = comment.body.id;
    await w.pushBranch(clone, 'feature', 'feature.txt', 'feature\n');
    const pull = await w.createPull('alice/demo', 'feature', 'feature pull', fixture.as('alice'));
    pullIndex = pull.number;
    const [demo, other, later] = [await repoId('alice/demo'), await repoId('alice/other'), await repoId('alice/later')];
    const pullIssue = { id: pull.id, number: pull.number };
    // Pull requests' ids are their issues' ids in Cairn as in Gitea's notification rows (issue_id).
    const pullIssueId = (await call<{ id: number }>('GET', `/repos/alice/demo/issues/${pull.number}`, fixture.as('alice'))).body.id;
    await seed([
      { name: 'A', user: 'bob', repoId: demo, type: 1, issue: first, status: UNREAD, at: '2024-01-01T10:00:00Z' },
      { name: 'B', user: 'bob', repoId: demo, type: 1, issue: second, status: READ, at: '2024-01-02T10:00:00Z' },
      { name: 'C', user: 'bob', repoId: demo, type: 2, issue: { ...pullIssue, id: pullIssueId }, status: PINNED, at: '2024-01-03T10:00:00Z' },
      { name: 'D', user: 'bob', repoId: other, type: 1, issue: elsewhere, status: UNREAD, at: '2024-01-04T10:00:00Z', commentId },
      { name: 'E', user: 'bob', repoId: later, type: 1, issue: hidden, status: UNREAD, at: '2024-01-05T10:00:00Z' },
      { name: 'F', user: 'bob', repoId: demo, type: 1, issue: toClose, status: READ, at: '2024-01-06T10:00:00Z' },
      { name: 'G', user: 'carol', repoId: demo, type: 1, issue: first, status: UNREAD, at: '2024-01-01T10:00:00Z' },
    ]);
    headers.bob = await token('bob', 'notes', ['read:notification', 'write:notification', 'read:repository']);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('lists unread and pinned threads by default, newest updated first, as Gitea writes them', async () => {
    const listed = await call<Thread[]>('GET', '/notifications', bob());
    expect(listed.status).toBe(200);
    expect(names(listed.body)).toEqual(['E', 'D', 'C', 'A']);
    expect(listed.headers.get('x-total-count')).toBe('4');
    const a = listed.body[3];
    expect(a).toEqual({
      id: ids.A,
      repository: expect.objectContaining({ full_name: 'alice/demo' }),
      subject: {
        title: 'first issue',
        url: `${root}api/v1/repos/alice/demo/issues/1`,
        latest_comment_url: '',
        html_url: `${root}alice/demo/issues/1`,
        latest_comment_html_url: '',
        type: 'Issue',
        state: 'open',
      },
      unread: true,
      pinned: false,
      updated_at: '2024-01-01T10:00:00Z',
      url: `${root}api/v1/notifications/threads/${ids.A}`,
    });
    // Departure (docs/api.md): the repository keeps the caller's permissions.
    expect(a.repository?.permissions).toMatchObject({ admin: false, push: false, pull: true });
    expect(listed.body[2]).toMatchObject({ pinned: true, unread: false, subject: { type: 'Pull', title: 'feature pull', state: 'open', html_url: `${root}alice/demo/pulls/${pullIndex}` } });
  });

  it('points at the issue’s newest comment as it is now', async () => {
    const got = await call<Thread>('GET', `/notifications/threads/${ids.D}`, bob());
    expect(got.status).toBe(200);
    expect(got.body.subject.latest_comment_url).toBe(`${root}api/v1/repos/alice/other/issues/comments/${commentId}`);
    expect(got.body.subject.latest_comment_html_url).toBe(`${root}alice/other/issues/1#issuecomment-${commentId}`);
    // A newer comment (which tells bob nothing: he neither watches nor took part) is the latest from then on.
    const newer = await call<{ id: number }>('POST', '/repos/alice/other/issues/1/comments', fixture.as('alice'), { body: 'another reply' });
    expect(newer.status).toBe(201);
    const again = await call<Thread>('GET', `/notifications/threads/${ids.D}`, bob());
    expect(again.body.subject.latest_comment_url).toBe(`${root}api/v1/repos/alice/other/issues/comments/${newer.body.id}`);
    expect(again.body.subject.latest_comment_html_url).toBe(`${root}alice/other/issues/1#issuecomment-${newer.body.id}`);
  });

  it('filters by status, subject type and time', async () => {
    const list = async (query: string) => {
      const got = await call<Thread[]>('GET', `/notifications?${query}`, bob());
      expect(got.status).toBe(200);
      return { names: names(got.body), total: got.headers.get('x-total-count') };
    };
    expect(await list('all=true')).toEqual({ names: ['F', 'E', 'D', 'C', 'B', 'A'], total: '6' });
    expect(await list('status-types=read')).toEqual({ names: ['F', 'B'], total: '2' });
    expect(await list('status-types=read&status-types=pinned')).toEqual({ names: ['F', 'C', 'B'], total: '3' });
    // Gitea drops unknown statuses; none left is no status filter at all.
    expect(await list('status-types=bogus')).toEqual({ names: ['F', 'E', 'D', 'C', 'B', 'A'], total: '6' });
    expect(await list('subject-type=pull')).toEqual({ names: ['C'], total: '1' });
    expect(await list('all=true&subject-type=issue')).toEqual({ names: ['F', 'E', 'D', 'B', 'A'], total: '5' });
    expect(await list('all=true&since=2024-01-02T10:00:00Z&before=2024-01-04T10:00:00Z')).toEqual({ names: ['D', 'C', 'B'], total: '3' });
    expect(await list('since=2024-01-04T10:00:00%2B00:00')).toEqual({ names: ['E', 'D'], total: '2' });
  });

  it('refuses a malformed since or before with 422', async () => {
    const bad = await call<{ message: string }>('GET', '/notifications?since=yesterday', bob());
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  });

  it('pages with Link and X-Total-Count', async () => {
    const got = await call<Thread[]>('GET', '/notifications?all=true&limit=2&page=2', bob());
    expect(got.status).toBe(200);
    expect(names(got.body)).toEqual(['D', 'C']);
    expect(got.headers.get('x-total-count')).toBe('6');
    const link = got.headers.get('link') ?? '';
    expect(link).toContain('/api/v1/notifications?all=true&limit=2&page=3>; rel="next"');
    expect(link).toContain('/api/v1/notifications?all=true&limit=2&page=1>; rel="prev"');
    const last = await call<Thread[]>('GET', '/notifications?all=true&limit=2&page=3', bob());
    expect(names(last.body)).toEqual(['B', 'A']);
    const beyond = await call<Thread[]>('GET', '/notifications?all=true&limit=2&page=4', bob());
    expect(beyond.body).toEqual([]);
  });

  it('counts unread threads', async () => {
    const got = await call<{ new: number }>('GET', '/notifications/new', bob());
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ new: 3 });
    expect((await call('GET', '/notifications/new', fixture.as('alice'))).body).toEqual({ new: 0 });
  });

  it('lists one repository’s threads', async () => {
    const other = await call<Thread[]>('GET', '/repos/alice/other/notifications', bob());
    expect(other.status).toBe(200);
    expect(names(other.body)).toEqual(['D']);
    expect(other.headers.get('x-total-count')).toBe('1');
    const demo = await call<Thread[]>('GET', '/repos/alice/demo/notifications?all=true', bob());
    expect(names(demo.body)).toEqual(['F', 'C', 'B', 'A']);
    expect((await call('GET', '/repos/alice/nothing/notifications', bob())).status).toBe(404);
  });

  it('shows the subject as it is now: closed, merged', async () => {
    expect((await call('PATCH', '/repos/alice/demo/issues/3', fixture.as('alice'), { state: 'closed' })).status).toBe(201);
    const closed = await call<Thread>('GET', `/notifications/threads/${ids.F}`, bob());
    expect(closed.body.subject).toMatchObject({ title: 'closed soon', state: 'closed' });

    await w.settled('alice/demo', pullIndex, fixture.as('alice'), (pull) => pull.mergeable);
    expect((await call('POST', `/repos/alice/demo/pulls/${pullIndex}/merge`, fixture.as('alice'), { Do: 'merge' })).status).toBe(200);
    const merged = await call<Thread>('GET', `/notifications/threads/${ids.C}`, bob());
    expect(merged.body.subject).toMatchObject({ type: 'Pull', state: 'merged', url: `${root}api/v1/repos/alice/demo/issues/${pullIndex}` });
  });

  it('keeps threads their owner’s: 403 for another user, 404 for none; site admins may read them', async () => {
    const others = await call<{ message: string }>('GET', `/notifications/threads/${ids.G}`, bob());
    expect(others.status).toBe(403);
    expect(others.body.message).toBe(`only user itself and admin are allowed to read/change this thread ${ids.G}`);
    expect((await call('PATCH', `/notifications/threads/${ids.G}`, bob())).status).toBe(403);
    expect((await call('GET', `/notifications/threads/${ids.G}`, fixture.root)).status).toBe(200);
    // Gitea's SetNotificationStatus refuses another user's thread (a 500 there): 403 here, the admin's too.
    expect((await call('PATCH', `/notifications/threads/${ids.G}`, fixture.root)).status).toBe(403);
    expect((await call('GET', '/notifications/threads/999999', bob())).status).toBe(404);
    expect((await call('GET', '/notifications/threads/abc', bob())).status).toBe(404);
  });

  it('needs a token: 401 anonymous, 403 public-only, 403 without the notification scope', async () => {
    for (const [method, path] of [
      ['GET', '/notifications'],
      ['PUT', '/notifications'],
      ['GET', '/notifications/new'],
      ['GET', `/notifications/threads/${ids.A}`],
      ['PATCH', `/notifications/threads/${ids.A}`],
      ['GET', '/repos/alice/demo/notifications'],
      ['PUT', '/repos/alice/demo/notifications'],
    ]) {
      const anonymous = await call<{ message: string }>(method, path, undefined);
      expect([method, path, anonymous.status, anonymous.body.message]).toEqual([method, path, 401, 'token is required']);
    }
    const publicOnly = await token('bob', 'public', ['public-only', 'write:notification']);
    for (const [method, path] of [
      ['GET', '/notifications'],
      ['PUT', '/notifications'],
      ['GET', '/notifications/new'],
      ['GET', `/notifications/threads/${ids.A}`],
      ['PATCH', `/notifications/threads/${ids.A}`],
    ]) {
      const refused = await call<{ message: string }>(method, path, publicOnly);
      expect([method, path, refused.status, refused.body.message]).toEqual([method, path, 403, 'this endpoint is not available for public-only tokens']);
    }
    const readOnly = await token('bob', 'reader', ['read:notification']);
    expect((await call('GET', '/notifications', readOnly)).status).toBe(200);
    const write = await call<{ message: string }>('PUT', '/notifications', readOnly);
    expect(write.status).toBe(403);
    expect(write.body.message).toContain('token does not have at least one of required scope');
    const unrelated = await token('bob', 'unrelated', ['read:user']);
    expect((await call('GET', '/notifications/new', unrelated)).status).toBe(403);
  });

  it('hides threads of a repository the user may no longer read', async () => {
    expect((await call('PATCH', '/repos/alice/later', fixture.as('alice'), { private: true })).status).toBe(200);
    const listed = await call<Thread[]>('GET', '/notifications', bob());
    expect(names(listed.body)).toEqual(['D', 'C', 'A']);
    // The total comes from the maintained counters, which still count the hidden thread.
    expect(listed.headers.get('x-total-count')).toBe('4');
    expect(JSON.stringify(listed.body)).not.toContain('hidden soon');
    // Alone it answers 404, as what exists but may not be seen does; it cannot be marked that way either.
    expect((await call('GET', `/notifications/threads/${ids.E}`, bob())).status).toBe(404);
    expect((await call('PATCH', `/notifications/threads/${ids.E}`, bob())).status).toBe(404);
    expect((await call('GET', '/repos/alice/later/notifications', bob())).status).toBe(404);
  });

  it('marks one thread read, pinned or unread (205 with the thread)', async () => {
    const read = await mark<Thread>('PATCH', `/notifications/threads/${ids.A}`, bob());
    expect(read.status).toBe(205);
    expect(read.body).toMatchObject({ id: ids.A, unread: false, pinned: false });
    expect((await call('GET', '/notifications/new', bob())).body).toEqual({ new: 2 });
    const pinned = await mark<Thread>('PATCH', `/notifications/threads/${ids.A}?to-status=pinned`, bob());
    expect(pinned.body).toMatchObject({ unread: false, pinned: true });
    const unread = await mark<Thread>('PATCH', `/notifications/threads/${ids.A}?to-status=unread`, bob());
    expect(unread.body).toMatchObject({ unread: true, pinned: false });
    // Marking moves the thread to now, as Gitea's update does.
    expect(Date.parse(unread.body.updated_at)).toBeGreaterThan(Date.parse('2025-01-01T00:00:00Z'));
    expect((await call('GET', '/notifications/new', bob())).body).toEqual({ new: 3 });
  });

  it('marks many threads (205 with the changed ones), up to last_read_at, within a repository', async () => {
    const bad = await call<{ message: string }>('PUT', '/notifications?last_read_at=soon', bob());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"');

    // Unread threads updated up to 2024-01-04T10:00:00Z: D (E is later, A was just marked unread now).
    const upTo = await mark<Thread[]>('PUT', '/notifications?last_read_at=2024-01-04T10:00:00Z', bob());
    expect(upTo.status).toBe(205);
    expect(names(upTo.body)).toEqual(['D']);
    expect(upTo.body[0]).toMatchObject({ unread: false, pinned: false });

    const inDemo = await mark<Thread[]>('PUT', '/repos/alice/demo/notifications', bob());
    expect(inDemo.status).toBe(205);
    expect(names(inDemo.body)).toEqual(['A']);
    // E, in the repository bob may no longer read, is still unread and counted.
    expect((await call('GET', '/notifications/new', bob())).body).toEqual({ new: 1 });

    const pinAll = await mark<Thread[]>('PUT', '/notifications?status-types=read&to-status=pinned', bob());
    expect(pinAll.status).toBe(205);
    expect(names(pinAll.body).sort()).toEqual(['A', 'B', 'D', 'F']);
    expect(pinAll.body.every((thread) => thread.pinned)).toBe(true);
    const everything = await call<Thread[]>('GET', '/notifications?status-types=pinned', bob());
    expect(names(everything.body).sort()).toEqual(['A', 'B', 'C', 'D', 'F']);
  });
});
