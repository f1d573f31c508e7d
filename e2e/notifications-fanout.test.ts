/**
 * Who gets a notification thread, end to end on the built supervisor with several users (Gitea's
 * services/uinotification/notify.go and models/activities/notification_list.go createOrUpdateIssueNotifications):
 * the repository's watchers, the issue's participants, the mentioned, an assignee, the members of a team asked to
 * review; never the actor, never someone who unsubscribed from the issue, never someone who can no longer read the
 * repository; a new comment turns a read thread unread and points it at the comment; closing, reopening, a review
 * and a merge bump the threads.
 *
 * Threads are observed in the installation's database (schema `notifications`): the API that lists them is tested in
 * notifications-api.test.ts. Consumption is awaited by polling with a deadline; a user NOT told is proven once the
 * same event's thread for someone else has arrived (one event's threads are written in one transaction).
 */
import { Client } from 'pg';
import type { ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(300_000);

interface Thread {
  user_id: number;
  status: number;
  subject_type: number;
  comment_id: number;
  updated_by: number;
}

const UNREAD = 1;
const READ = 2;

describe('notification threads from issue and pull-request events', () => {
  let fx: Fixture;
  let pg: Client;
  const ids: Record<string, number> = {};
  /** Issue ids by name (the thread's issue_id). */
  const issue: Record<string, { id: number; number: number }> = {};

  const call = async <T = unknown>(method: string, path: string, user: string, body?: unknown, status?: number): Promise<T> => {
    const answer: ApiResponse<T> = await fx.api.request<T>(method, `/api/v1${path}`, { headers: user === 'root' ? fx.root : fx.as(user), body });
    if (status !== undefined && answer.status !== status) throw new Error(`${method} ${path} as ${user}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const comment = async (name: string, user: string, body: string): Promise<number> =>
    (await call<{ id: number }>('POST', `/repos/alice/app/issues/${issue[name].number}/comments`, user, { body }, 201)).id;

  /** The threads of an issue, by user name. */
  const threads = async (name: string): Promise<Map<string, Thread>> => {
    const { rows } = await pg.query<Thread>(
      'SELECT user_id::int, status::int, subject_type::int, comment_id::int, updated_by::int FROM notifications.notification_threads WHERE issue_id = $1',
      [issue[name].id],
    );
    const byId = new Map(Object.entries(ids).map(([login, id]) => [id, login]));
    return new Map(rows.map((row) => [byId.get(row.user_id) ?? `#${row.user_id}`, row]));
  };
  /** Until `probe` holds of the issue's threads. */
  const threadsWhen = (name: string, what: string, probe: (threads: Map<string, Thread>) => boolean) =>
    waitFor(`${name}: ${what}`, async () => {
      const found = await threads(name);
      return probe(found) ? found : undefined;
    });
  const unread = (login: string) => (found: Map<string, Thread>) => found.get(login)?.status === UNREAD;
  const markAllRead = (name: string) => pg.query('UPDATE notifications.notification_threads SET status = $2 WHERE issue_id = $1', [issue[name].id, READ]);
  const statuses = (found: Map<string, Thread>) => Object.fromEntries([...found].map(([login, thread]) => [login, thread.status]));

  beforeAll(async () => {
    fx = await startFixture('e2e_notifications_fanout', ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina']);
    pg = new Client({ connectionString: fx.database.url });
    await pg.connect();
    // The counters' trigger names its table unqualified, as the service's connections (search_path) see it.
    await pg.query('SET search_path TO notifications');
    for (const login of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina']) ids[login] = (await call<{ id: number }>('GET', `/users/${login}`, 'root', undefined, 200)).id;
    // alice's private repository (its creator watches it): bob and erin write, carol and dave read; frank is a stranger.
    await call('POST', '/user/repos', 'alice', { name: 'app', private: true }, 201);
    for (const [login, permission] of [['bob', 'write'], ['carol', 'read'], ['dave', 'read'], ['erin', 'write']]) {
      await call('PUT', `/repos/alice/app/collaborators/${login}`, 'alice', { permission }, 204);
    }
    await call('PUT', '/repos/alice/app/subscription', 'carol', undefined, 200);
  });

  afterAll(async () => {
    await pg?.end();
    await fx?.stop();
  });

  it('a new issue: the repository watchers hear of it, its poster does not', async () => {
    issue.a = await call('POST', '/repos/alice/app/issues', 'bob', { title: 'A' }, 201);
    const found = await threadsWhen('a', 'the watchers told', (t) => t.has('alice') && t.has('carol'));
    expect(statuses(found)).toEqual({ alice: UNREAD, carol: UNREAD });
    expect(found.get('carol')).toMatchObject({ subject_type: 1, comment_id: 0, updated_by: ids.bob });
  });

  it('a comment: the participants hear of it (the poster, earlier commenters), the commenter does not', async () => {
    await comment('a', 'dave', 'first');
    await threadsWhen('a', 'the poster told', (t) => t.has('bob'));
    await comment('a', 'erin', 'second');
    const found = await threadsWhen('a', 'the earlier commenter told', (t) => t.has('dave'));
    expect([...found.keys()].sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('a new comment turns a read thread unread and points it at the comment; an unread one keeps its comment', async () => {
    await pg.query('UPDATE notifications.notification_threads SET status = $3 WHERE issue_id = $1 AND user_id = $2', [issue.a.id, ids.dave, READ]);
    const before = (await threads('a')).get('alice');
    expect(before?.status).toBe(UNREAD);
    const commentId = await comment('a', 'bob', 'third');
    const found = await threadsWhen('a', "dave's thread unread", unread('dave'));
    expect(found.get('dave')).toMatchObject({ comment_id: commentId, updated_by: ids.bob });
    // Gitea's updateIssueNotification: an unread thread keeps the comment it pointed at, so none is skipped.
    expect(found.get('alice')).toMatchObject({ status: UNREAD, comment_id: before?.comment_id, updated_by: ids.bob });
  });

  it('the mentioned hear of it, unless they may not read the repository', async () => {
    issue.b = await call('POST', '/repos/alice/app/issues', 'alice', { title: 'B', body: 'cc @erin and @frank' }, 201);
    const found = await threadsWhen('b', 'the mentioned told', (t) => t.has('erin'));
    expect(statuses(found)).toEqual({ carol: UNREAD, erin: UNREAD });
  });

  it('an assignee hears of it', async () => {
    await call('PATCH', `/repos/alice/app/issues/${issue.b.number}`, 'alice', { assignees: ['bob'] }, 201);
    const found = await threadsWhen('b', 'the assignee told', (t) => t.has('bob'));
    expect(found.get('bob')).toMatchObject({ status: UNREAD, updated_by: ids.alice });
    expect([...found.keys()].sort()).toEqual(['bob', 'carol', 'erin']);
  });

  it('someone who unsubscribed from the issue is not told, though they watch the repository', async () => {
    await call('DELETE', `/repos/alice/app/issues/${issue.a.number}/subscriptions/carol`, 'carol', undefined, 201);
    await markAllRead('a');
    await comment('a', 'dave', 'fourth');
    const found = await threadsWhen('a', 'the others told', (t) => unread('alice')(t) && unread('bob')(t));
    // erin took part since her comment; dave is the actor.
    expect(statuses(found)).toEqual({ alice: UNREAD, bob: UNREAD, carol: READ, dave: READ, erin: UNREAD });
  });

  it('someone who lost access to the repository is not told', async () => {
    // erin took part (commented on A) and was mentioned in B; then she is no longer a collaborator.
    await call('DELETE', '/repos/alice/app/collaborators/erin', 'alice', undefined, 204);
    await markAllRead('a');
    await comment('a', 'bob', 'fifth');
    const found = await threadsWhen('a', 'the others told', (t) => unread('alice')(t) && unread('dave')(t));
    expect(statuses(found)).toEqual({ alice: UNREAD, bob: READ, carol: READ, dave: UNREAD, erin: READ });
  });

  it('closing and reopening bump the threads, not the actor', async () => {
    await markAllRead('a');
    await call('PATCH', `/repos/alice/app/issues/${issue.a.number}`, 'alice', { state: 'closed' }, 201);
    let found = await threadsWhen('a', 'the close told', (t) => unread('bob')(t) && unread('dave')(t));
    expect(statuses(found)).toEqual({ alice: READ, bob: UNREAD, carol: READ, dave: UNREAD, erin: READ });
    expect(found.get('bob')?.updated_by).toBe(ids.alice);
    await markAllRead('a');
    await call('PATCH', `/repos/alice/app/issues/${issue.a.number}`, 'bob', { state: 'open' }, 201);
    found = await threadsWhen('a', 'the reopen told', (t) => unread('alice')(t) && unread('dave')(t));
    expect(statuses(found)).toEqual({ alice: UNREAD, bob: READ, carol: READ, dave: UNREAD, erin: READ });
    expect(found.get('alice')?.updated_by).toBe(ids.bob);
  });

  it('a team asked to review: each member hears of it; a review and the merge bump the pull request threads', async () => {
    await call('POST', '/orgs', 'alice', { username: 'acme', email: 'acme@example.com', visibility: 'private' }, 201);
    const team = await call<{ id: number }>('POST', '/orgs/acme/teams', 'alice', { name: 'reviewers', units_map: { 'repo.code': 'write', 'repo.pulls': 'write' } }, 201);
    for (const login of ['frank', 'gina']) await call('PUT', `/teams/${team.id}/members/${login}`, 'alice', undefined, 204);
    await call('POST', '/orgs/acme/repos', 'alice', { name: 'lib', auto_init: true, private: true }, 201);
    await call('PUT', `/teams/${team.id}/repos/acme/lib`, 'alice', undefined, 204);
    await call('POST', '/repos/acme/lib/contents/feature.txt', 'alice', { content: Buffer.from('new\n').toString('base64'), new_branch: 'feature', message: 'add feature' }, 201);
    const pull = await call<{ id: number; number: number }>('POST', '/repos/acme/lib/pulls', 'alice', { head: 'feature', base: 'main', title: 'Feature', team_reviewers: ['reviewers'] }, 201);
    issue.pull = { id: pull.id, number: pull.number };
    const asked = await threadsWhen('pull', 'the team members told', (t) => t.has('frank') && t.has('gina'));
    expect(statuses(asked)).toEqual({ frank: UNREAD, gina: UNREAD });
    expect(asked.get('frank')).toMatchObject({ subject_type: 2, updated_by: ids.alice });

    // gina reviews: the poster (who also watches the organization's repository she created) hears of it, and so
    // does frank, whom the review mentions (Gitea's SubmitReview notifies the review's mentions).
    await markAllRead('pull');
    await call('POST', `/repos/acme/lib/pulls/${pull.number}/reviews`, 'gina', { event: 'APPROVED', body: 'fine, @frank have a look' }, 200);
    const reviewed = await threadsWhen('pull', 'the poster and the mentioned told of the review', (t) => t.get('alice')?.status === UNREAD && t.get('frank')?.status === UNREAD);
    expect(statuses(reviewed)).toEqual({ alice: UNREAD, frank: UNREAD, gina: READ });
    expect(reviewed.get('alice')?.comment_id).toBeGreaterThan(0);

    // New commits on the head (Gitea's PullRequestPushCommits): the audience but the pusher — gina took part (her
    // review), frank did not (a mention is no participation).
    await markAllRead('pull');
    await call('POST', '/repos/acme/lib/contents/more.txt', 'alice', { content: Buffer.from('more\n').toString('base64'), branch: 'feature', message: 'more' }, 201);
    const pushed = await threadsWhen('pull', 'the reviewer told of the push', unread('gina'));
    expect(statuses(pushed)).toEqual({ alice: READ, frank: READ, gina: UNREAD });

    // The merge: gina took part (her review), frank did not (a mention is no participation).
    await markAllRead('pull');
    await waitFor('the pull request to be mergeable', async () => {
      const got = await call<{ mergeable: boolean }>('GET', `/repos/acme/lib/pulls/${pull.number}`, 'alice', undefined, 200);
      return got.mergeable ? true : undefined;
    });
    await call('POST', `/repos/acme/lib/pulls/${pull.number}/merge`, 'alice', { Do: 'merge' }, 200);
    const merged = await threadsWhen('pull', 'the reviewer told of the merge', unread('gina'));
    expect(statuses(merged)).toEqual({ alice: READ, frank: READ, gina: UNREAD });
  });
});
