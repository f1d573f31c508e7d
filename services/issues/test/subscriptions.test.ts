/**
 * IssueSubscriptionService on a real database, as Gitea's CheckIssueWatch and setIssueSubscription decide: an
 * explicit choice wins; without one the poster, commenters and repository watchers are subscribed (assignees and
 * mentioned users are not); only the user or a site admin changes a subscription, and an unchanged one answers
 * `changed: false` with nothing written; the list holds the explicit subscriptions, in pages, with the total;
 * notifications (only) asks an issue's audience.
 */
import { silentLogger } from '@cairn/log';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { IssueSubscriptionServiceService, type RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code, createRpcClient } from '@cairn/rpc';
import { decoded, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});
afterAll(async () => {
  await h.stop();
});

const REPO = 41;
const POSTER = 51;
const COMMENTER = 52;
const OTHER = 53;
const ADMIN = 54;
const ASSIGNEE = 55;
const REPO_ADMIN = 56;

const as = (userId: number, more: Partial<ScopeOptions> = {}): RepoScope => scope({ userId, repoId: REPO, ...more });

let nextIndex = 1;
async function insertIssue(more: { isPull?: boolean } = {}): Promise<{ id: number; index: number; created: Date }> {
  const index = nextIndex++;
  const { rows } = await h.sql.query<{ id: string; created: Date }>(
    `INSERT INTO issues (repo_id, index, poster_id, title, is_pull, created) VALUES ($1, $2, $3, 'watch me', $4, '2024-05-06T07:08:09Z') RETURNING id, created`,
    [REPO, index, POSTER, more.isPull ?? false],
  );
  return { id: Number(rows[0].id), index, created: rows[0].created };
}

async function check(index: number, userId: number, watchesRepository = false): Promise<boolean> {
  return (await h.subscriptions.checkSubscription({ scope: as(userId), index, watchesRepository })).subscribed;
}

async function set(index: number, viewer: RepoScope, userId: number, subscribed: boolean, watchesRepository = false): Promise<boolean> {
  return (await h.subscriptions.setSubscription({ scope: viewer, index, userId, subscribed, watchesRepository })).changed;
}

async function watchRows(issueId: number): Promise<Array<{ user_id: number; is_watching: boolean }>> {
  const { rows } = await h.sql.query<{ user_id: string; is_watching: boolean }>(
    'SELECT user_id, is_watching FROM issue_watches WHERE issue_id = $1 ORDER BY user_id',
    [issueId],
  );
  return rows.map((row) => ({ user_id: Number(row.user_id), is_watching: row.is_watching }));
}

test('without an explicit choice: the poster, commenters and repository watchers are subscribed', async () => {
  const issue = await insertIssue();
  await h.comments.createComment({ scope: as(COMMENTER), index: issue.index, body: 'me too' });
  await h.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, $2)', [issue.id, ASSIGNEE]);
  await h.sql.query('INSERT INTO issue_mentions (issue_id, user_id) VALUES ($1, $2)', [issue.id, OTHER]);

  expect(await check(issue.index, POSTER)).toBe(true);
  expect(await check(issue.index, COMMENTER)).toBe(true);
  // Gitea's participants are the poster and the commenters only.
  expect(await check(issue.index, ASSIGNEE)).toBe(false);
  expect(await check(issue.index, OTHER)).toBe(false);
  expect(await check(issue.index, OTHER, true)).toBe(true);

  const { issueCreated } = await h.subscriptions.checkSubscription({ scope: as(OTHER), index: issue.index, watchesRepository: false });
  expect(issueCreated).toEqual(issue.created);
  expect(await watchRows(issue.id)).toEqual([]);
});

test('an explicit choice wins over taking part and over watching the repository', async () => {
  const issue = await insertIssue();
  const seq = await h.lastSeq();
  // The poster is subscribed already: nothing to do.
  expect(await set(issue.index, as(POSTER), POSTER, true)).toBe(false);
  expect(await set(issue.index, as(POSTER), POSTER, false)).toBe(true);
  expect(await check(issue.index, POSTER, true)).toBe(false);
  // Unsubscribed already.
  expect(await set(issue.index, as(POSTER), POSTER, false)).toBe(false);

  // A repository watcher is subscribed without a row; unsubscribing writes one.
  expect(await set(issue.index, as(OTHER), OTHER, true, true)).toBe(false);
  expect(await set(issue.index, as(OTHER), OTHER, false, true)).toBe(true);
  expect(await check(issue.index, OTHER, true)).toBe(false);
  expect(await set(issue.index, as(OTHER), OTHER, true, true)).toBe(true);
  expect(await check(issue.index, OTHER, false)).toBe(true);

  expect(await watchRows(issue.id)).toEqual([
    { user_id: POSTER, is_watching: false },
    { user_id: OTHER, is_watching: true },
  ]);
  const events = (await h.outbox(seq)).map((row) => ({ subject: row.subject, event: decoded(IssueEvent, row) }));
  expect(events.map((e) => [e.subject, e.event.subjectUserId, e.event.meta?.actorId, e.event.issue?.id])).toEqual([
    ['cairn.issue.unsubscribed', POSTER, POSTER, issue.id],
    ['cairn.issue.unsubscribed', OTHER, OTHER, issue.id],
    ['cairn.issue.subscribed', OTHER, OTHER, issue.id],
  ]);
});

test("only the user themselves or a site admin changes a subscription (repository admins do not, as Gitea)", async () => {
  const issue = await insertIssue();
  await expect(set(issue.index, as(OTHER), COMMENTER, true)).rejects.toMatchObject({
    code: Code.PERMISSION_DENIED,
    reason: 'subscription_of_other_user',
  });
  await expect(set(issue.index, as(REPO_ADMIN, { mode: 'admin' }), COMMENTER, true)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  expect(await set(issue.index, as(ADMIN, { isAdmin: true }), COMMENTER, true)).toBe(true);
  const seq = await h.lastSeq();
  expect(await set(issue.index, as(ADMIN, { isAdmin: true }), COMMENTER, false)).toBe(true);
  const [event] = (await h.outbox(seq)).map((row) => decoded(IssueEvent, row));
  expect([event.subjectUserId, event.meta?.actorId]).toEqual([COMMENTER, ADMIN]);
});

test('a token is needed to check or change; unknown issues, unreadable units and bad user ids are refused', async () => {
  const issue = await insertIssue();
  const pull = await insertIssue({ isPull: true });
  await expect(h.subscriptions.checkSubscription({ scope: as(0), index: issue.index, watchesRepository: false })).rejects.toMatchObject({
    code: Code.UNAUTHENTICATED,
  });
  await expect(set(issue.index, as(0), POSTER, true)).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
  await expect(check(9999, POSTER)).rejects.toMatchObject({ code: Code.NOT_FOUND });
  await expect(set(9999, as(POSTER), POSTER, false)).rejects.toMatchObject({ code: Code.NOT_FOUND });
  const issuesOnly = as(POSTER, { units: ['repo.code', 'repo.issues'] });
  await expect(h.subscriptions.checkSubscription({ scope: issuesOnly, index: pull.index, watchesRepository: false })).rejects.toMatchObject({
    code: Code.NOT_FOUND,
  });
  await expect(h.subscriptions.listSubscribers({ scope: issuesOnly, index: pull.index })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  for (const userId of [0, -1]) await expect(set(issue.index, as(POSTER), userId, true)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  expect(await watchRows(issue.id)).toEqual([]);
});

test('the list: explicit subscriptions only, earliest first, in pages, with the total; no token needed', async () => {
  const issue = await insertIssue();
  const subscribers = [61, 62, 63, 64];
  for (const userId of subscribers) await set(issue.index, as(userId), userId, true);
  await set(issue.index, as(65), 65, true);
  await set(issue.index, as(65), 65, false);
  // The poster is subscribed, but not explicitly: not listed (Gitea's GetIssueWatchers).
  const all = await h.subscriptions.listSubscribers({ scope: as(0), index: issue.index });
  expect(all).toEqual({ userIds: subscribers, total: 4 });
  const second = await h.subscriptions.listSubscribers({ scope: as(0), index: issue.index, page: { page: 2, limit: 3 } });
  expect(second).toEqual({ userIds: [64], total: 4 });
  const beyond = await h.subscriptions.listSubscribers({ scope: as(0), index: issue.index, page: { page: 9, limit: 3 } });
  expect(beyond).toEqual({ userIds: [], total: 4 });
});

test("GetIssueAudience: explicit subscribers and unsubscribers, and the participants (poster, commenters) once each", async () => {
  const issue = await insertIssue();
  await h.comments.createComment({ scope: as(COMMENTER), index: issue.index, body: 'one' });
  await h.comments.createComment({ scope: as(COMMENTER), index: issue.index, body: 'two' });
  await h.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, $2)', [issue.id, ASSIGNEE]);
  expect(await set(issue.index, as(OTHER), OTHER, true)).toBe(true);
  expect(await set(issue.index, as(COMMENTER), COMMENTER, false)).toBe(true);

  // notifications' fan-out is its one caller.
  const notifications = createRpcClient(IssueSubscriptionServiceService, { target: `127.0.0.1:${h.service.port}`, service: 'issues', caller: 'notifications', logger: silentLogger() });
  const audience = await notifications.getIssueAudience({ issueId: issue.id });
  expect({ ...audience, participantIds: [...audience.participantIds].sort((a, b) => a - b) }).toEqual({
    watcherIds: [OTHER],
    unwatcherIds: [COMMENTER],
    // An assignee is no participant (Gitea's GetParticipantIDsByIssue); an unsubscribed commenter still took part.
    participantIds: [POSTER, COMMENTER],
  });
  await expect(notifications.getIssueAudience({ issueId: 987_654 })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  await expect(h.subscriptions.getIssueAudience({ issueId: issue.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  notifications.close();
});
