/**
 * TimeTrackingServiceService (proto/cairn/issues/v1/issues_service.proto): tracked times and stopwatches, as Gitea's
 * routers/api/v1/repo/issue_tracked_time.go, issue_stopwatch.go and models/issues/{tracked_time,stopwatch}.go decide.
 *
 * - The time tracker is `[service] ENABLE_TIMETRACKING` and the repository's switch. Lists of a repository's times
 *   answer FAILED_PRECONDITION (reason `time_tracking_disabled`) when it is off; so do add, delete and reset when the
 *   viewer may not use it because it is off. Otherwise a viewer who may not track time (Gitea's CanUseTimetracker:
 *   anyone when contributors-only is off, else issue writers, the poster and assignees) is PERMISSION_DENIED with an
 *   empty message (Gitea's bare 403).
 * - Non-writers see only their own times; naming another user needs issue write (or, on the deprecated per-user
 *   route, repository admin): PERMISSION_DENIED `query by user not allowed; not enough rights`.
 * - Stopwatches need issue write and the time tracker (else the bare 403). Stopping one adds a time of the elapsed
 *   seconds (at least 1: a time is never 0); starting one stops the user's stopwatch on any other issue.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Issue, RepoScope, TimeTrackingServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError, type Viewer, viewerFromActor } from '@cairn/rpc';
import { readableIssue } from '../domain/issue-access';
import { pageWindow } from '../domain/paging';
import { type TimelineEntry, TimelineType, secondsBody } from '../domain/timeline-entries';
import {
  type Access,
  accessOf,
  canRead,
  canTrackTime,
  canWrite,
  isRepoAdmin,
  isTimeTrackerEnabled,
  requireNotArchived,
  requireRead,
  requireSignedIn,
} from '../domain/permissions';
import { enqueueTimeEvent } from '../events/time-events';
import { findIssuesByIds, type IssueRow, toIssue, toIssues } from '../store/issues';
import { visibilityOf } from '../store/readable-issues';
import {
  type DeletedStopwatchRow,
  countUserStopwatches,
  deleteOtherStopwatches,
  deleteStopwatch,
  insertStopwatch,
  listUserStopwatches,
  stopwatchRepositories,
  toStopwatch,
} from '../store/stopwatches';
import {
  type TimeFilter,
  type TrackedTimeRow,
  countTrackedTimes,
  findTrackedTimeForUpdate,
  insertTrackedTime,
  listTrackedTimes,
  markTrackedTimeDeleted,
  markUserIssueTimesDeleted,
  toTrackedTime,
  trackedTimeRepositories,
} from '../store/tracked-times';
import { insertTimelineEntries } from '../store/timeline';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** The most one added time may be: ten years of seconds. */
export const MAX_TRACKED_SECONDS = 10 * 365 * 24 * 60 * 60;

export const TIME_TRACKING_DISABLED_MESSAGE = 'time tracking disabled';
export const QUERY_BY_USER_DENIED_MESSAGE = 'query by user not allowed; not enough rights';
export const TIME_ALREADY_DELETED_MESSAGE = 'tracked time was already deleted';
export const STOPWATCH_EXISTS_MESSAGE = 'cannot start a stopwatch again if it already exists';
export const NO_STOPWATCH_TO_STOP_MESSAGE = 'cannot stop a non-existent stopwatch';
export const NO_STOPWATCH_TO_CANCEL_MESSAGE = 'cannot cancel a non-existent stopwatch';

function trackerDisabled(): CairnError {
  return CairnError.precondition(TIME_TRACKING_DISABLED_MESSAGE, { reason: 'time_tracking_disabled' });
}

/** Gitea's bare `ctx.Status(403)`. */
function bareDenied(): CairnError {
  return CairnError.denied('', { reason: 'time_tracker_forbidden' });
}

function timeNotFound(id: number): CairnError {
  // Gitea's db.ErrNotExist{Resource: "tracked_time", ID: id}.
  return CairnError.notFound(`tracked_time does not exist [id: ${id}]`, { reason: 'time_not_found' });
}

/** A user id of a request: 0 (none) or a positive id. */
function userIdOf(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw CairnError.invalid('user_id must be a positive id', { reason: 'invalid_user' });
  return value;
}

function validDate(date: Date | undefined, name: string): Date | undefined {
  if (date !== undefined && Number.isNaN(date.getTime())) throw CairnError.invalid(`${name} is not a valid time`, { reason: `invalid_${name}` });
  return date;
}

/** Added seconds: a whole number above 0 and at most ten years. */
function secondsOf(time: number): number {
  if (!Number.isSafeInteger(time) || time <= 0 || time > MAX_TRACKED_SECONDS) {
    throw CairnError.invalid(`time must be between 1 and ${MAX_TRACKED_SECONDS} seconds`, { reason: 'invalid_time' });
  }
  return time;
}

function signedInViewer(viewer: Viewer): number {
  if (viewer.id <= 0) throw CairnError.unauthenticated('token is required');
  return viewer.id;
}

/**
 * Gitea's tracked-time entries (AddTime, FinishIssueStopwatch, DeleteTime, DeleteIssueUserTimes): by the time's
 * user, the seconds as "|<seconds>", the time's id for added and stopped times.
 */
function timeEntry(time: TrackedTimeRow, type: number, seconds: number, timeId = 0): TimelineEntry {
  return { repoId: time.repo_id, issueId: time.issue_id, posterId: time.user_id, type, body: secondsBody(seconds), timeId };
}

export function createTimeTrackingService(context: IssuesContext): AsyncServiceOf<typeof TimeTrackingServiceService> {
  const { db } = context;
  const siteEnabled = context.config.service.enableTimetracking;

  /** The issue and its message, when the viewer may use the time tracker on it (Gitea's CanUseTimetracker). */
  async function trackableIssue(tx: DatabaseTransactionConnection, access: Access, index: number): Promise<{ row: IssueRow; issue: Issue }> {
    const row = await readableIssue(tx, access, index);
    const issue = await toIssue(tx, row);
    const assigned = issue.assigneeIds.includes(access.viewer.id);
    if (!canTrackTime(access, { isPull: row.is_pull, posterId: row.poster_id, assigned }, siteEnabled)) {
      throw isTimeTrackerEnabled(access, siteEnabled) ? bareDenied() : trackerDisabled();
    }
    return { row, issue };
  }

  /** The issue of a stopwatch call: issue write and the time tracker, else the bare 403 (Gitea's prepareIssueForStopwatch). */
  async function stopwatchIssue(tx: DatabaseTransactionConnection, access: Access, index: number): Promise<{ row: IssueRow; issue: Issue }> {
    const row = await readableIssue(tx, access, index);
    const issue = await toIssue(tx, row);
    const assigned = issue.assigneeIds.includes(access.viewer.id);
    if (!canWrite(access, row.is_pull) || !canTrackTime(access, { isPull: row.is_pull, posterId: row.poster_id, assigned }, siteEnabled)) {
      throw bareDenied();
    }
    return { row, issue };
  }

  /** What every stopwatch change shares: a signed-in viewer, a repository that takes changes, the issue, one transaction. */
  function changeStopwatch(
    scope: RepoScope | undefined,
    issueIndex: number,
    change: (tx: DatabaseTransactionConnection, viewerId: number, access: Access, found: { row: IssueRow; issue: Issue }) => Promise<void>,
  ): Promise<Record<string, never>> {
    const access = accessOf(scope);
    const viewerId = requireSignedIn(access);
    requireNotArchived(access);
    return guard(() =>
      db.pool.transaction(async (tx) => {
        await change(tx, viewerId, access, await stopwatchIssue(tx, access, issueIndex));
        return {};
      }),
    );
  }

  /** Turns a removed stopwatch into the time it measured, and says so. */
  async function finishStopwatch(tx: DatabaseTransactionConnection, actorId: number, stopwatch: DeletedStopwatchRow, issue: Issue, repoPrivate: boolean): Promise<void> {
    const row = await insertTrackedTime(tx, { issueId: stopwatch.issue_id, repoId: stopwatch.repo_id, userId: stopwatch.user_id, time: stopwatch.elapsed });
    const trackedTime = toTrackedTime(row);
    await insertTimelineEntries(tx, [timeEntry(row, TimelineType.stopTracking, row.time, row.id)]);
    await enqueueTimeEvent(tx, 'stopwatch_stopped', { actorId, issue, repoPrivate, trackedTime });
    await enqueueTimeEvent(tx, 'time_added', { actorId, issue, repoPrivate, trackedTime });
  }

  return {
    async listTrackedTimes(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      let userId = userIdOf(request.userId);
      const since = validDate(request.since, 'since');
      const before = validDate(request.before, 'before');
      if (!isTimeTrackerEnabled(access, siteEnabled)) throw trackerDisabled();
      return guard(async () => {
        const filter: TimeFilter = { repoId: access.repository.id, since, before, visibility: { kind: 'all' } };
        if (request.issueIndex !== 0) {
          filter.issueId = (await readableIssue(db.pool, access, request.issueIndex)).id;
        } else {
          // Gitea's mustEnableIssues; pull requests' times show where their unit is readable too.
          requireRead(access, false);
          filter.visibility = { kind: 'units', issues: true, pulls: canRead(access, true) };
        }
        if (request.userFilterNeedsAdmin) {
          if (userId !== viewerId && !isRepoAdmin(access)) throw CairnError.denied(QUERY_BY_USER_DENIED_MESSAGE, { reason: 'query_by_user_denied' });
        } else if (!access.viewer.isAdmin && !canWrite(access, false) && userId !== viewerId) {
          // Gitea's cantSetUser: issue writers (and site admins) see everyone's times, others only their own.
          if (userId !== 0) throw CairnError.denied(QUERY_BY_USER_DENIED_MESSAGE, { reason: 'query_by_user_denied' });
          userId = viewerId;
        }
        if (userId !== 0) filter.userId = userId;
        const [rows, total] = await Promise.all([listTrackedTimes(db.pool, filter, pageWindow(request.page)), countTrackedTimes(db.pool, filter)]);
        return { times: rows.map(toTrackedTime), total };
      });
    },

    async listUserTrackedTimes(request) {
      const userId = signedInViewer(viewerFromActor(request.viewer));
      const filter: TimeFilter = {
        userId,
        since: validDate(request.since, 'since'),
        before: validDate(request.before, 'before'),
        visibility: visibilityOf(request.readable),
      };
      return guard(async () => {
        const [rows, total, repositories] = await Promise.all([
          listTrackedTimes(db.pool, filter, pageWindow(request.page)),
          countTrackedTimes(db.pool, filter),
          trackedTimeRepositories(db.pool, filter),
        ]);
        return { times: rows.map(toTrackedTime), total, repositories };
      });
    },

    async addTrackedTime(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      const time = secondsOf(request.time);
      const created = validDate(request.created, 'created');
      const requestedUser = userIdOf(request.userId);
      requireNotArchived(access);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { row, issue } = await trackableIssue(tx, access, request.issueIndex);
          // Gitea honours another user only for repository admins and site admins; for others it is ignored.
          const userId = requestedUser !== 0 && isRepoAdmin(access) ? requestedUser : viewerId;
          const added = await insertTrackedTime(tx, { issueId: row.id, repoId: row.repo_id, userId, time, created });
          const trackedTime = toTrackedTime(added);
          await insertTimelineEntries(tx, [timeEntry(added, TimelineType.addTimeManual, added.time, added.id)]);
          await enqueueTimeEvent(tx, 'time_added', { actorId: viewerId, issue, repoPrivate: access.repository.private, trackedTime });
          return { time: trackedTime };
        }),
      );
    },

    async deleteTrackedTime(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      requireNotArchived(access);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { row, issue } = await trackableIssue(tx, access, request.issueIndex);
          const found = Number.isSafeInteger(request.id) && request.id > 0 ? await findTrackedTimeForUpdate(tx, request.id) : undefined;
          if (found === undefined || found.issue_id !== row.id) throw timeNotFound(request.id);
          if (found.deleted) throw CairnError.notFound(TIME_ALREADY_DELETED_MESSAGE, { reason: 'time_already_deleted' });
          // Only its user and site admins delete a time.
          if (!access.viewer.isAdmin && found.user_id !== viewerId) throw bareDenied();
          const deleted = await markTrackedTimeDeleted(tx, found.id);
          await insertTimelineEntries(tx, [timeEntry(deleted, TimelineType.deleteTimeManual, deleted.time)]);
          await enqueueTimeEvent(tx, 'time_deleted', { actorId: viewerId, issue, repoPrivate: access.repository.private, trackedTime: toTrackedTime(deleted) });
          return {};
        }),
      );
    },

    async resetTrackedTimes(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      requireNotArchived(access);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { row, issue } = await trackableIssue(tx, access, request.issueIndex);
          const removed = await markUserIssueTimesDeleted(tx, row.id, viewerId);
          // Gitea's DeleteIssueUserTimes: db.ErrNotExist{Resource: "tracked_time"}.
          if (removed.length === 0) throw CairnError.notFound('tracked_time does not exist', { reason: 'no_tracked_times' });
          // Gitea's DeleteIssueUserTimes: one entry with the sum of the removed times.
          const sum = removed.reduce((total, time) => total + time.time, 0);
          await insertTimelineEntries(tx, [timeEntry(removed[0], TimelineType.deleteTimeManual, sum)]);
          for (const time of removed) {
            await enqueueTimeEvent(tx, 'time_deleted', { actorId: viewerId, issue, repoPrivate: access.repository.private, trackedTime: toTrackedTime(time) });
          }
          return {};
        }),
      );
    },

    startStopwatch: (request) =>
      changeStopwatch(request.scope, request.issueIndex, async (tx, viewerId, access, { row, issue }) => {
        const started = await insertStopwatch(tx, viewerId, { id: row.id, repoId: row.repo_id });
        if (started === undefined) throw CairnError.exists(STOPWATCH_EXISTS_MESSAGE, { reason: 'stopwatch_exists' });
        // Gitea keeps one stopwatch running per user: the others stop, leaving their times.
        const others = await deleteOtherStopwatches(tx, viewerId, row.id);
        const otherIssues = await toIssues(tx, await findIssuesByIds(tx, others.map((other) => other.issue_id)));
        for (const other of others) {
          const otherIssue = otherIssues.find((candidate) => candidate.id === other.issue_id);
          if (otherIssue === undefined) throw new Error(`issue ${other.issue_id} of a stopwatch vanished inside its own transaction`);
          const otherPrivate = other.repo_id === access.repository.id ? access.repository.private : true;
          await finishStopwatch(tx, viewerId, other, otherIssue, otherPrivate);
        }
        await insertTimelineEntries(tx, [{ repoId: row.repo_id, issueId: row.id, posterId: viewerId, type: TimelineType.startTracking }]);
        await enqueueTimeEvent(tx, 'stopwatch_started', { actorId: viewerId, issue, repoPrivate: access.repository.private });
      }),

    stopStopwatch: (request) =>
      changeStopwatch(request.scope, request.issueIndex, async (tx, viewerId, access, { row, issue }) => {
        const stopped = await deleteStopwatch(tx, viewerId, row.id);
        if (stopped === undefined) throw CairnError.precondition(NO_STOPWATCH_TO_STOP_MESSAGE, { reason: 'no_stopwatch' });
        await finishStopwatch(tx, viewerId, stopped, issue, access.repository.private);
      }),

    cancelStopwatch: (request) =>
      changeStopwatch(request.scope, request.issueIndex, async (tx, viewerId, access, { row, issue }) => {
        const cancelled = await deleteStopwatch(tx, viewerId, row.id);
        if (cancelled === undefined) throw CairnError.precondition(NO_STOPWATCH_TO_CANCEL_MESSAGE, { reason: 'no_stopwatch' });
        await insertTimelineEntries(tx, [{ repoId: row.repo_id, issueId: row.id, posterId: viewerId, type: TimelineType.cancelTracking }]);
        await enqueueTimeEvent(tx, 'stopwatch_cancelled', { actorId: viewerId, issue, repoPrivate: access.repository.private });
      }),

    async listStopwatches(request) {
      const userId = signedInViewer(viewerFromActor(request.viewer));
      const visibility = visibilityOf(request.readable);
      return guard(async () => {
        const [rows, total, repositories] = await Promise.all([
          listUserStopwatches(db.pool, userId, visibility, pageWindow(request.page)),
          countUserStopwatches(db.pool, userId, visibility),
          stopwatchRepositories(db.pool, userId),
        ]);
        return { stopwatches: rows.map(toStopwatch), total, repositories };
      });
    },
  };
}
