/**
 * The notifications fan-out under a crash, on the built supervisor with the machine's NATS (every service its own
 * process, a `[bus] PREFIX` of its own): while the `notifications-issues` consumer works through a backlog of issue
 * and comment events, the notifications process is killed with SIGKILL; the supervisor restarts it and the consumer
 * resumes. Afterwards every expected thread exists exactly once, the maintained counters (notification_counts)
 * equal the real counts, and each event queued its mail jobs exactly once (`processOnce`: the event id commits with
 * the threads and jobs, and the message is acknowledged after that commit).
 */
import { serviceEnvOverrides } from '@cairn/config';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { Client } from 'pg';
import { type Fixture, startFixture } from './support/fixture';
import { isAlive, readRuntime, waitFor } from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(300_000);

const ISSUES = 8;
const COMMENTS_PER_ISSUE = 12;
const EVENTS = ISSUES + ISSUES * COMMENTS_PER_ISSUE;

describe('notifications fan-out when its process is killed while it consumes', () => {
  let fx: Fixture;
  let pg: Client;
  const ids: Record<string, number> = {};

  const call = async <T = unknown>(method: string, path: string, user: string, body: unknown, status: number): Promise<T> => {
    const answer = await fx.api.request<T>(method, `/api/v1${path}`, { headers: user === 'root' ? fx.root : fx.as(user), body });
    if (answer.status !== status) throw new Error(`${method} ${path} as ${user}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** Events the consumer has applied (each recorded once, with its effect). */
  const applied = async (): Promise<number> =>
    Number(
      (await pg.query<{ n: string }>(`SELECT count(*) AS n FROM notifications.cairn_processed_events WHERE consumer = 'notifications-issues'`)).rows[0]?.n ?? 0,
    );
  const notificationsPid = (): number | undefined => readRuntime(fx.workDir)?.services.notifications?.process?.pid;

  const prefix = uniqueName('nfault');

  beforeAll(async () => {
    fx = await startFixture('e2e_notifications_faults', ['alice', 'bob', 'carol', 'dave'], {
      CAIRN__bus__URL: testNatsUrl(),
      CAIRN__bus__PREFIX: prefix,
      ...serviceEnvOverrides({ mailer: { ENABLED: 'true', PROTOCOL: 'dummy' } }),
    });
    pg = new Client({ connectionString: fx.database.url });
    await pg.connect();
    for (const login of ['alice', 'bob', 'carol', 'dave']) ids[login] = (await call<{ id: number }>('GET', `/users/${login}`, 'root', undefined, 200)).id;
    // A public repository: its creator alice watches it, bob and carol watch it too.
    await call('POST', '/user/repos', 'alice', { name: 'app' }, 201);
    for (const login of ['bob', 'carol']) await call('PUT', '/repos/alice/app/subscription', login, undefined, 200);
  });

  afterAll(async () => {
    await pg?.end();
    await fx?.stop();
    await deleteStreamsOf([prefix]);
  });

  it('loses and doubles nothing', async () => {
    const issues: Array<{ id: number; number: number }> = [];
    for (let i = 0; i < ISSUES; i += 1) issues.push(await call('POST', '/repos/alice/app/issues', 'alice', { title: `issue ${i}` }, 201));
    // dave comments on every issue, several at once, so that a backlog builds up on the stream.
    const posting = (async () => {
      for (let round = 0; round < COMMENTS_PER_ISSUE; round += 1) {
        await Promise.all(issues.map((issue) => call('POST', `/repos/alice/app/issues/${issue.number}/comments`, 'dave', { body: `comment ${round}` }, 201)));
      }
    })();

    // Kill -9 the notifications process once it is part-way through (some events applied, not all).
    const before = notificationsPid();
    expect(before).toBeDefined();
    const appliedAtKill = await waitFor('the consumer to be part-way through', async () => {
      const count = await applied();
      return count >= ISSUES + 10 ? count : undefined;
    });
    process.kill(before!, 'SIGKILL');
    expect(appliedAtKill).toBeLessThan(EVENTS);
    await waitFor('notifications to be restarted', () => {
      const pid = notificationsPid();
      return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
    });
    await posting;
    await waitFor('every event applied', async () => ((await applied()) === EVENTS ? true : undefined), 120_000);
    expect(fx.instance.output()).toMatch(/notifications exited unexpectedly; restarting it/);

    // Every expected thread exactly once: alice (poster), bob and carol (watchers) on each issue; dave (who only
    // commented) on none.
    const { rows: threads } = await pg.query<{ user_id: number; issue_id: number; status: number }>(
      'SELECT user_id::int, issue_id::int, status::int FROM notifications.notification_threads ORDER BY issue_id, user_id',
    );
    const expected = issues.flatMap((issue) => [ids.alice, ids.bob, ids.carol].sort((a, b) => a - b).map((userId) => ({ user_id: userId, issue_id: issue.id, status: 1 })));
    expect(threads).toEqual(expected.sort((a, b) => a.issue_id - b.issue_id || a.user_id - b.user_id));

    // The counters equal the real counts (none left over for a status no thread has).
    const { rows: mismatches } = await pg.query(`
      SELECT coalesce(c.user_id, t.user_id) AS user_id, coalesce(c.status, t.status) AS status, c.threads AS counted, t.n AS real
      FROM notifications.notification_counts c
      FULL JOIN (SELECT user_id, status, count(*) AS n FROM notifications.notification_threads GROUP BY user_id, status) t
        ON t.user_id = c.user_id AND t.status = c.status
      WHERE coalesce(c.threads, 0) <> coalesce(t.n, 0)`);
    expect(mismatches).toEqual([]);

    // Mail jobs once per event and recipient: an issue opened → bob, carol (watchers) and alice's own; a comment →
    // alice (participant), bob, carol and dave's own.
    const { rows: jobs } = await pg.query<{ reason: string; n: string }>('SELECT reason, count(*) AS n FROM notifications.mail_jobs GROUP BY reason ORDER BY reason');
    const comments = ISSUES * COMMENTS_PER_ISSUE;
    expect(jobs.map((row) => [row.reason, Number(row.n)])).toEqual([
      ['own', ISSUES + comments],
      ['participant', comments],
      ['watcher', 2 * ISSUES + 2 * comments],
    ]);
  });
});
