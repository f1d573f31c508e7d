/**
 * Tracked times and stopwatches (rpc/time-tracking-service.ts) on a real database: who may track time (Gitea's
 * CanUseTimetracker), who sees whose times, soft deletion, resets, stopwatches and the events they publish. Issues
 * are written straight into the table: this file tests time tracking, not issue creation.
 */
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { ListTrackedTimesRequest, type RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code } from '@cairn/rpc';
import { MAX_TRACKED_SECONDS } from '../src/rpc/time-tracking-service';
import { decoded, type ScopeOptions, scope, startService, type ServiceHarness } from './harness';

const POSTER = 10;
const WRITER = 11;
const ASSIGNEE = 12;
const READER = 13;
const REPO_ADMIN = 14;
const SITE_ADMIN = 99;

let harness: ServiceHarness;

/** Issue ids by `${repoId}#${index}`. */
const issueIds = new Map<string, number>();

async function insertIssue(repoId: number, index: number, posterId: number, isPull = false, assignees: number[] = []): Promise<number> {
  const { rows } = await harness.sql.query<{ id: string }>(
    'INSERT INTO issues (repo_id, index, poster_id, title, is_pull) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [repoId, index, posterId, `issue ${repoId}#${index}`, isPull],
  );
  const id = Number(rows[0].id);
  for (const assignee of assignees) await harness.sql.query('INSERT INTO issue_assignees (issue_id, assignee_id) VALUES ($1, $2)', [id, assignee]);
  issueIds.set(`${repoId}#${index}`, id);
  return id;
}

const roles: Record<number, Pick<ScopeOptions, 'mode' | 'isAdmin'>> = {
  [POSTER]: { mode: 'read' },
  [WRITER]: { mode: 'write' },
  [ASSIGNEE]: { mode: 'read' },
  [READER]: { mode: 'read' },
  [REPO_ADMIN]: { mode: 'admin' },
  [SITE_ADMIN]: { mode: 'owner', isAdmin: true },
};

/** The scope of `userId` in their role on repository `repoId` (1 unless said), with `extra` settings. */
function as(userId: number, extra: Partial<ScopeOptions> = {}): RepoScope {
  return scope({ userId, ...roles[userId], repoId: 1, ...extra });
}

const actor = (userId: number) => ({ userId, isAdmin: false, isRestricted: false });

/** ListTrackedTimes with the fields a test leaves out at their defaults. */
const listTimes = (request: Partial<ListTrackedTimesRequest>) => harness.times.listTrackedTimes(ListTrackedTimesRequest.fromPartial(request));

async function liveTimes(issueId: number): Promise<Array<{ user_id: string; time: string }>> {
  const { rows } = await harness.sql.query<{ user_id: string; time: string }>(
    'SELECT user_id, time FROM tracked_times WHERE issue_id = $1 AND NOT deleted ORDER BY id',
    [issueId],
  );
  return rows;
}

beforeAll(async () => {
  harness = await startService();
  await insertIssue(1, 1, POSTER);
  await insertIssue(1, 2, POSTER, true);
  await insertIssue(1, 3, WRITER, false, [ASSIGNEE]);
  await insertIssue(2, 1, POSTER);
  await insertIssue(3, 1, POSTER);
  await insertIssue(3, 2, POSTER, true);
});
afterAll(async () => {
  await harness.stop();
});

describe('adding time', () => {
  test('the poster, an assignee and a writer may add; the event carries the time, the issue and the privacy', async () => {
    const seq = await harness.lastSeq();
    const { time } = await harness.times.addTrackedTime({ scope: as(POSTER, { private: true }), issueIndex: 1, time: 3600, userId: 0 });
    expect(time).toMatchObject({ issueId: issueIds.get('1#1'), userId: POSTER, time: 3600, repoId: 1 });
    expect(time?.created?.getMilliseconds()).toBe(0);
    await harness.times.addTrackedTime({ scope: as(ASSIGNEE), issueIndex: 3, time: 60, userId: 0 });
    await harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 1, time: 120, userId: 0 });

    const events = await harness.outbox(seq);
    expect(events.map((row) => row.subject)).toEqual(['cairn.issue.time_added', 'cairn.issue.time_added', 'cairn.issue.time_added']);
    const first = decoded(IssueEvent, events[0]);
    expect(first).toMatchObject({ repoPrivate: true, issue: { id: issueIds.get('1#1'), index: 1 }, trackedTime: { id: time?.id, time: 3600, userId: POSTER } });
    expect(first.meta).toMatchObject({ actorId: POSTER, repoId: 1 });
  });

  test('a reader who is neither poster nor assignee may not, unless anyone may track time', async () => {
    const before = await liveTimes(issueIds.get('1#1') ?? 0);
    await expect(harness.times.addTrackedTime({ scope: as(READER), issueIndex: 1, time: 60, userId: 0 })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: '',
      reason: 'time_tracker_forbidden',
    });
    expect(await liveTimes(issueIds.get('1#1') ?? 0)).toEqual(before);
    const { time } = await harness.times.addTrackedTime({
      scope: as(READER, { allowOnlyContributorsToTrackTime: false }),
      issueIndex: 1,
      time: 60,
      userId: 0,
    });
    expect(time).toMatchObject({ userId: READER, time: 60 });
  });

  test('a disabled time tracker refuses with "time tracking disabled"', async () => {
    await expect(harness.times.addTrackedTime({ scope: as(WRITER, { enableTimeTracker: false }), issueIndex: 1, time: 60, userId: 0 })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: 'time tracking disabled',
      reason: 'time_tracking_disabled',
    });
  });

  test.each([-1, -3600, MAX_TRACKED_SECONDS + 1, Number.MAX_SAFE_INTEGER])('%d seconds is refused and nothing is stored', async (seconds) => {
    const before = await liveTimes(issueIds.get('1#1') ?? 0);
    await expect(harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 1, time: seconds, userId: 0 })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'invalid_time',
    });
    expect(await liveTimes(issueIds.get('1#1') ?? 0)).toEqual(before);
  });

  test('ten years of seconds is the most one time may be', async () => {
    const { time } = await harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 3, time: MAX_TRACKED_SECONDS, userId: 0 });
    expect(time?.time).toBe(MAX_TRACKED_SECONDS);
  });

  test('an unknown or unreadable issue is NOT_FOUND', async () => {
    await expect(harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 77, time: 60, userId: 0 })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(
      harness.times.addTrackedTime({ scope: as(WRITER, { units: ['repo.code', 'repo.issues'] }), issueIndex: 2, time: 60, userId: 0 }),
    ).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  test('another user is honoured for repository admins and site admins only', async () => {
    const byAdmin = await harness.times.addTrackedTime({ scope: as(REPO_ADMIN), issueIndex: 3, time: 30, userId: READER });
    expect(byAdmin.time?.userId).toBe(READER);
    const bySiteAdmin = await harness.times.addTrackedTime({ scope: as(SITE_ADMIN), issueIndex: 3, time: 30, userId: READER });
    expect(bySiteAdmin.time?.userId).toBe(READER);
    // Gitea ignores the name for anyone else: the time is the writer's own.
    const byWriter = await harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 3, time: 30, userId: READER });
    expect(byWriter.time?.userId).toBe(WRITER);
  });

  test('a given creation time is kept, to the second', async () => {
    const created = new Date('2020-05-06T07:08:09.750Z');
    const { time } = await harness.times.addTrackedTime({ scope: as(WRITER), issueIndex: 3, time: 5, created, userId: 0 });
    expect(time?.created?.toISOString()).toBe('2020-05-06T07:08:09.000Z');
  });

  test('an archived repository takes no time', async () => {
    await expect(harness.times.addTrackedTime({ scope: as(WRITER, { archived: true }), issueIndex: 1, time: 60, userId: 0 })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'archived',
    });
  });
});

describe('listing times', () => {
  const repo = 3;
  let early: number;

  beforeAll(async () => {
    const add = (userId: number, index: number, time: number, created: string) =>
      harness.times.addTrackedTime({ scope: as(userId, { repoId: repo }), issueIndex: index, time, created: new Date(created), userId: 0 });
    early = (await add(POSTER, 1, 10, '2021-01-01T00:00:00Z')).time?.id ?? 0;
    await add(POSTER, 1, 20, '2021-02-01T00:00:00Z');
    await add(WRITER, 1, 30, '2021-03-01T00:00:00Z');
    await add(WRITER, 2, 40, '2021-04-01T00:00:00Z');
  });

  test('writers see everyone\'s times of an issue, oldest first, with the total', async () => {
    const { times, total } = await listTimes({ scope: as(WRITER, { repoId: repo }), issueIndex: 1, userId: 0, page: { page: 1, limit: 2 } });
    expect(total).toBe(3);
    expect(times.map((t) => t.time)).toEqual([10, 20]);
    expect(times[0].id).toBe(early);
    const second = await listTimes({ scope: as(WRITER, { repoId: repo }), issueIndex: 1, userId: 0, page: { page: 2, limit: 2 } });
    expect(second.times.map((t) => t.time)).toEqual([30]);
  });

  test('non-writers see only their own, and may not ask for someone else\'s', async () => {
    const own = await listTimes({ scope: as(POSTER, { repoId: repo }), issueIndex: 0, userId: 0, page: { page: 1, limit: 50 } });
    expect(own.times.map((t) => t.userId)).toEqual([POSTER, POSTER]);
    const self = await listTimes({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, userId: POSTER, page: { page: 1, limit: 50 } });
    expect(self.total).toBe(2);
    await expect(
      listTimes({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, userId: WRITER, page: { page: 1, limit: 50 } }),
    ).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'query by user not allowed; not enough rights' });
  });

  test('the repository list filters by user and by creation time, both ends included', async () => {
    const { times, total } = await listTimes({
      scope: as(WRITER, { repoId: repo }),
      issueIndex: 0,
      userId: WRITER,
      since: new Date('2021-03-01T00:00:00Z'),
      before: new Date('2021-04-01T00:00:00Z'),
      page: { page: 1, limit: 50 },
    });
    expect([times.map((t) => t.time), total]).toEqual([[30, 40], 2]);
    const none = await listTimes({
      scope: as(WRITER, { repoId: repo }),
      issueIndex: 0,
      userId: 0,
      since: new Date('2022-01-01T00:00:00Z'),
      page: { page: 1, limit: 50 },
    });
    expect([none.times, none.total]).toEqual([[], 0]);
  });

  test('pull requests\' times show only where pull requests are readable; without the issues unit the list is NOT_FOUND', async () => {
    const withoutPulls = await listTimes({
      scope: as(WRITER, { repoId: repo, units: ['repo.code', 'repo.issues'] }),
      issueIndex: 0,
      userId: 0,
      page: { page: 1, limit: 50 },
    });
    expect(withoutPulls.times.map((t) => t.time)).toEqual([10, 20, 30]);
    expect(withoutPulls.total).toBe(3);
    await expect(
      listTimes({ scope: as(WRITER, { repoId: repo, units: ['repo.code', 'repo.pulls'] }), issueIndex: 0, userId: 0, page: { page: 1, limit: 50 } }),
    ).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  test('a disabled time tracker is FAILED_PRECONDITION', async () => {
    await expect(
      listTimes({ scope: as(WRITER, { repoId: repo, enableTimeTracker: false }), issueIndex: 1, userId: 0, page: { page: 1, limit: 50 } }),
    ).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'time_tracking_disabled' });
  });

  test('on the per-user route another user needs repository admin', async () => {
    const request = (userId: number, target: number) =>
      listTimes({ scope: as(userId, { repoId: repo }), issueIndex: 0, userId: target, userFilterNeedsAdmin: true });
    await expect(request(WRITER, POSTER)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'query by user not allowed; not enough rights' });
    expect((await request(REPO_ADMIN, POSTER)).times.map((t) => t.time)).toEqual([10, 20]);
    expect((await request(SITE_ADMIN, WRITER)).times.map((t) => t.time)).toEqual([30, 40]);
    expect((await request(POSTER, POSTER)).total).toBe(2);
  });

  test('a user\'s own times across repositories, narrowed to the repositories the gateway names', async () => {
    const all = await harness.times.listUserTrackedTimes({ viewer: actor(POSTER), page: { page: 1, limit: 50 } });
    expect(all.repositories).toEqual({ issueRepoIds: [1, 3], pullRepoIds: [] });
    expect(all.times.every((t) => t.userId === POSTER)).toBe(true);
    expect(all.total).toBe(all.times.length);
    const onlyRepo3 = await harness.times.listUserTrackedTimes({
      viewer: actor(POSTER),
      page: { page: 1, limit: 50 },
      readable: { issueRepoIds: [3], pullRepoIds: [] },
    });
    expect([onlyRepo3.times.map((t) => t.time), onlyRepo3.total, onlyRepo3.repositories?.issueRepoIds]).toEqual([[10, 20], 2, [1, 3]]);
    const windowed = await harness.times.listUserTrackedTimes({ viewer: actor(POSTER), page: { page: 1, limit: 50 }, before: new Date('2021-01-15T00:00:00Z') });
    expect(windowed.times.map((t) => t.time)).toEqual([10]);
    await expect(harness.times.listUserTrackedTimes({ viewer: undefined, page: { page: 1, limit: 50 } })).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
  });
});

describe('deleting and resetting times', () => {
  const repo = 2;

  test('a time goes once; a second delete says it was already deleted', async () => {
    const { time } = await harness.times.addTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, time: 90, userId: 0 });
    const id = time?.id ?? 0;
    const seq = await harness.lastSeq();
    await harness.times.deleteTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, id });
    const events = await harness.outbox(seq);
    expect(events.map((row) => row.subject)).toEqual(['cairn.issue.time_deleted']);
    expect(decoded(IssueEvent, events[0]).trackedTime).toMatchObject({ id, time: 90 });
    await expect(harness.times.deleteTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, id })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: 'tracked time was already deleted',
      reason: 'time_already_deleted',
    });
  });

  test('another user\'s time is a bare PERMISSION_DENIED but for site admins', async () => {
    const { time } = await harness.times.addTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, time: 15, userId: 0 });
    const id = time?.id ?? 0;
    await expect(harness.times.deleteTrackedTime({ scope: as(REPO_ADMIN, { repoId: repo }), issueIndex: 1, id })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: '',
    });
    await harness.times.deleteTrackedTime({ scope: as(SITE_ADMIN, { repoId: repo }), issueIndex: 1, id });
    expect((await liveTimes(issueIds.get('2#1') ?? 0)).length).toBe(0);
  });

  test('a time of another issue, or no time at all, is NOT_FOUND', async () => {
    const { time } = await harness.times.addTrackedTime({ scope: as(POSTER), issueIndex: 1, time: 15, userId: 0 });
    await expect(harness.times.deleteTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, id: time?.id ?? 0 })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: `tracked_time does not exist [id: ${time?.id}]`,
    });
    await expect(harness.times.deleteTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, id: 987654 })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      reason: 'time_not_found',
    });
    expect((await liveTimes(issueIds.get('1#1') ?? 0)).some((row) => Number(row.time) === 15)).toBe(true);
  });

  test('a reset takes the viewer\'s times only; with none it is NOT_FOUND', async () => {
    await harness.times.addTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, time: 1, userId: 0 });
    await harness.times.addTrackedTime({ scope: as(POSTER, { repoId: repo }), issueIndex: 1, time: 2, userId: 0 });
    await harness.times.addTrackedTime({ scope: as(WRITER, { repoId: repo }), issueIndex: 1, time: 3, userId: 0 });
    const seq = await harness.lastSeq();
    await harness.times.resetTrackedTimes({ scope: as(POSTER, { repoId: repo }), issueIndex: 1 });
    expect((await harness.outbox(seq)).map((row) => row.subject)).toEqual(['cairn.issue.time_deleted', 'cairn.issue.time_deleted']);
    expect(await liveTimes(issueIds.get('2#1') ?? 0)).toEqual([{ user_id: String(WRITER), time: '3' }]);
    await expect(harness.times.resetTrackedTimes({ scope: as(POSTER, { repoId: repo }), issueIndex: 1 })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: 'tracked_time does not exist',
      reason: 'no_tracked_times',
    });
  });
});

describe('stopwatches', () => {
  const repo = 4;

  beforeAll(async () => {
    await insertIssue(repo, 1, POSTER);
    await insertIssue(repo, 2, POSTER);
  });

  test('they need issue write: the poster who only reads gets a bare PERMISSION_DENIED', async () => {
    await expect(harness.times.startStopwatch({ scope: as(POSTER, { repoId: repo }), issueIndex: 1 })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: '',
    });
    await expect(harness.times.startStopwatch({ scope: as(WRITER, { repoId: repo, enableTimeTracker: false }), issueIndex: 1 })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: '',
    });
  });

  test('start, start again, list, stop (a time of the elapsed seconds), stop again', async () => {
    const me = as(WRITER, { repoId: repo });
    const seq = await harness.lastSeq();
    await harness.times.startStopwatch({ scope: me, issueIndex: 1 });
    await expect(harness.times.startStopwatch({ scope: me, issueIndex: 1 })).rejects.toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'cannot start a stopwatch again if it already exists',
    });
    const listed = await harness.times.listStopwatches({ viewer: actor(WRITER), page: { page: 1, limit: 50 } });
    expect(listed).toMatchObject({ total: 1, repositories: { issueRepoIds: [repo], pullRepoIds: [] }, stopwatches: [{ issueIndex: 1, issueTitle: `issue ${repo}#1`, repoId: repo }] });

    await harness.sql.query("UPDATE stopwatches SET created = created - interval '3725 seconds' WHERE user_id = $1", [WRITER]);
    await harness.times.stopStopwatch({ scope: me, issueIndex: 1 });
    const times = await liveTimes(issueIds.get(`${repo}#1`) ?? 0);
    expect(times).toHaveLength(1);
    expect(Number(times[0].time)).toBeGreaterThanOrEqual(3725);
    expect(Number(times[0].time)).toBeLessThanOrEqual(3727);
    expect((await harness.outbox(seq)).map((row) => row.subject)).toEqual([
      'cairn.issue.stopwatch_started',
      'cairn.issue.stopwatch_stopped',
      'cairn.issue.time_added',
    ]);
    await expect(harness.times.stopStopwatch({ scope: me, issueIndex: 1 })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: 'cannot stop a non-existent stopwatch',
      reason: 'no_stopwatch',
    });
  });

  test('a stopwatch stopped at once still leaves a time of one second', async () => {
    const me = as(REPO_ADMIN, { repoId: repo });
    await harness.times.startStopwatch({ scope: me, issueIndex: 2 });
    await harness.times.stopStopwatch({ scope: me, issueIndex: 2 });
    const times = await liveTimes(issueIds.get(`${repo}#2`) ?? 0);
    expect(times.map((row) => [Number(row.user_id), Number(row.time) >= 1])).toEqual([[REPO_ADMIN, true]]);
  });

  test('starting one on another issue stops the running one', async () => {
    const me = as(SITE_ADMIN, { repoId: repo });
    await harness.times.startStopwatch({ scope: me, issueIndex: 1 });
    await harness.times.startStopwatch({ scope: me, issueIndex: 2 });
    const listed = await harness.times.listStopwatches({ viewer: { userId: SITE_ADMIN, isAdmin: true, isRestricted: false }, page: { page: 1, limit: 50 } });
    expect(listed.stopwatches.map((s) => s.issueIndex)).toEqual([2]);
    expect((await liveTimes(issueIds.get(`${repo}#1`) ?? 0)).map((row) => Number(row.user_id))).toContain(SITE_ADMIN);
  });

  test('cancel leaves no time; cancelling none is FAILED_PRECONDITION', async () => {
    const me = as(WRITER, { repoId: repo });
    const before = await liveTimes(issueIds.get(`${repo}#2`) ?? 0);
    await harness.times.startStopwatch({ scope: me, issueIndex: 2 });
    await harness.times.cancelStopwatch({ scope: me, issueIndex: 2 });
    expect(await liveTimes(issueIds.get(`${repo}#2`) ?? 0)).toEqual(before);
    await expect(harness.times.cancelStopwatch({ scope: me, issueIndex: 2 })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: 'cannot cancel a non-existent stopwatch',
    });
  });

  test('the list leaves out repositories the gateway does not name', async () => {
    await harness.times.startStopwatch({ scope: as(WRITER, { repoId: repo }), issueIndex: 1 });
    const hidden = await harness.times.listStopwatches({
      viewer: actor(WRITER),
      page: { page: 1, limit: 50 },
      readable: { issueRepoIds: [1], pullRepoIds: [repo] },
    });
    expect([hidden.stopwatches, hidden.total, hidden.repositories]).toEqual([[], 0, { issueRepoIds: [repo], pullRepoIds: [] }]);
  });
});

describe('with [service] ENABLE_TIMETRACKING = false', () => {
  let off: ServiceHarness;

  beforeAll(async () => {
    off = await startService({ CAIRN__service__ENABLE_TIMETRACKING: 'false' });
    await off.sql.query("INSERT INTO issues (repo_id, index, poster_id, title) VALUES (1, 1, $1, 'x')", [WRITER]);
  });
  afterAll(async () => {
    await off.stop();
  });

  test('every repository\'s tracker is off', async () => {
    await expect(off.times.addTrackedTime({ scope: as(WRITER), issueIndex: 1, time: 60, userId: 0 })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'time_tracking_disabled',
    });
    await expect(off.times.listTrackedTimes(ListTrackedTimesRequest.fromPartial({ scope: as(WRITER), issueIndex: 0, userId: 0, page: { page: 1, limit: 50 } }))).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
    });
    await expect(off.times.startStopwatch({ scope: as(WRITER), issueIndex: 1 })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: '' });
  });
});
