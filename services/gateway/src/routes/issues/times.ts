/**
 * Tracked times and stopwatches (routers/api/v1/repo/issue_tracked_time.go, issue_stopwatch.go). The issues
 * service decides who may do what (time tracker on, CanUseTimetracker, who sees whose times); this file reads the
 * request, resolves user names, and answers as Gitea does:
 * - an issue's times: 404 `Timetracker is disabled` when off; the repository's lists and add/reset/delete: 400
 *   `time tracking disabled`; a refusal Gitea sends without a body (time of another user, stopwatch without issue
 *   write) is a bare 403;
 * - `?user=` naming nobody: 404 `user does not exist [uid: 0, name: X]`; someone else without the right: 403
 *   `query by user not allowed; not enough rights`; `since`/`before` as Go's RFC 3339 (422 otherwise);
 * - lists carry X-Total-Count (the deprecated `/times/{user}` is one unpaged list, as in Gitea);
 * - `GET /user/times` and `GET /user/stopwatches` leave out what lies in repositories the caller can no longer read
 *   (repos says which, once per list), counts included.
 * An archived repository takes no change (423), as the issues service's contract says.
 */
import { type CairnErrorMapping, HttpError, go, goFormString, goStruct } from '@cairn/http';
import type { RepositoriesByKind } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_ISSUES, UNIT_PULLS, accessAtLeast, toApiStopWatches, toApiTrackedTimes } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, ORGANIZATION_TYPE, doerOf, json, noContent, repoOf } from '../../api/types';
import { queryBeforeSince } from '../../issues/before-since';
import { repoScopeOf } from '../../issues/scope';
import { pageOf } from '../orgs/params';

/** Gitea's `api.AddTimeOption`. */
export const AddTimeOption = goStruct('AddTimeOption', {
  time: go.int64('Time'),
  created: go.timePtr('Created'),
  user_name: go.string('User'),
});
type AddTime = { time: number; created: Date | undefined; user_name: string };

/** Go's zero time.Time: Gitea reads a `created` of it as "not given". */
const GO_ZERO_TIME_MS = new Date('0001-01-01T00:00:00Z').getTime();

/** `{index}`: a path that is not a positive number names no issue (the service answers 404 for -1). */
function issueIndexOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.index) || -1;
}

/** The `{owner}/{repo}` repository by id, for converting what lies in it. */
function thisRepository<B>(ctx: ApiContext<B>): ReadonlyMap<number, Repository> {
  const { repository } = repoOf(ctx);
  return new Map([[repository.id, repository]]);
}

/**
 * A user by name, as Gitea's GetUserByName finds one (individuals only); `notFound` is the route's 404 for a name
 * that names nobody the caller may see.
 */
async function userIdByName<B>(ctx: ApiContext<B>, name: string, notFound: (message: string) => HttpError): Promise<number> {
  const message = `user does not exist [uid: 0, name: ${name}]`;
  try {
    const { user } = await ctx.services.clients.users.getUser({ username: name, viewer: ctx.viewer });
    if (user === undefined || user.type === ORGANIZATION_TYPE) throw notFound(message);
    return user.id;
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) throw notFound(message);
    throw error;
  }
}

/** `?user=`: 0 when not given; a name naming nobody is 404 with Gitea's APIError body (no `errors`). */
async function queryUserId<B>(ctx: ApiContext<B>): Promise<number> {
  const name = goFormString(ctx.query, 'user').trim();
  return name === '' ? 0 : userIdByName(ctx, name, (message) => new HttpError(404, message));
}

/**
 * Runs a handler, answering the service's empty PERMISSION_DENIED with Gitea's bodiless 403 and, where Gitea answers
 * a missing issue with its bare `APIErrorNotFound()` (stopwatches), NOT_FOUND with that.
 */
async function answering(work: () => Promise<ApiReply>, bareNotFound = false): Promise<ApiReply> {
  try {
    return await work();
  } catch (error) {
    if (isCairnError(error) && error.code === Code.PERMISSION_DENIED && error.message === '') return { status: 403 };
    if (bareNotFound && isCairnError(error) && error.code === Code.NOT_FOUND) throw HttpError.notFound();
    throw error;
  }
}

/** The repository lists' and the changes' errors: a disabled tracker is 400, an archived repository 423. */
const TIME_ERRORS: CairnErrorMapping = {
  reasons: {
    time_tracking_disabled: 400,
    archived: 423,
    // APIErrorNotFound("tracked time was already deleted"): the message, no `errors`.
    time_already_deleted: (error) => HttpError.notFound(error.message),
    // APIError(404, db.ErrNotExist{Resource: "tracked_time"}).
    no_tracked_times: (error) => new HttpError(404, error.message),
  },
};

/** An issue's list: a disabled tracker is APIErrorNotFound("Timetracker is disabled"). */
const ISSUE_LIST_ERRORS: CairnErrorMapping = {
  reasons: { time_tracking_disabled: () => HttpError.notFound('Timetracker is disabled') },
};

/** Stopwatches: none to stop or cancel is 409 (a second start is ALREADY_EXISTS, 409 too). */
const STOPWATCH_ERRORS: CairnErrorMapping = { reasons: { no_stopwatch: 409, archived: 423 } };

/**
 * The caller's own repositories of a cross-repository list as repos lets them read them now: which of `wanted` show
 * issues, which show pull requests, and the repositories themselves.
 */
async function readableRepositories<B>(
  ctx: ApiContext<B>,
  wanted: RepositoriesByKind | undefined,
): Promise<{ readable: RepositoriesByKind; repositories: Map<number, Repository>; coversAll: boolean }> {
  const issueIds = wanted?.issueRepoIds ?? [];
  const pullIds = wanted?.pullRepoIds ?? [];
  const ids = [...new Set([...issueIds, ...pullIds])];
  const found = ids.length === 0 ? [] : (await ctx.services.clients.repos.batchGetRepositories({ viewer: ctx.viewer, ids })).repositories;
  const repositories = new Map<number, Repository>();
  const readsUnit = new Map<number, (unit: string) => boolean>();
  for (const { repository, permission } of found) {
    if (repository === undefined || permission === undefined) continue;
    repositories.set(repository.id, repository);
    readsUnit.set(repository.id, (unit) => repository.units.some((u) => u.key === unit) && accessAtLeast(permission.units[unit], 'read'));
  }
  const readable = {
    issueRepoIds: issueIds.filter((id) => readsUnit.get(id)?.(UNIT_ISSUES) ?? false),
    pullRepoIds: pullIds.filter((id) => readsUnit.get(id)?.(UNIT_PULLS) ?? false),
  };
  const coversAll = readable.issueRepoIds.length === issueIds.length && readable.pullRepoIds.length === pullIds.length;
  return { readable, repositories, coversAll };
}

/** An issue's times (`issueIndex` > 0) or the repository's, with the `user`, `since` and `before` filters. */
async function listTimes<B>(ctx: ApiContext<B>, issueIndex: number): Promise<ApiReply> {
  const userId = await queryUserId(ctx);
  const { before, since } = queryBeforeSince(ctx.query);
  const { times, total } = await ctx.services.clients.timeTracking.listTrackedTimes({
    scope: repoScopeOf(ctx),
    issueIndex,
    userId,
    since,
    before,
    page: pageOf(ctx),
    userFilterNeedsAdmin: false,
  });
  ctx.setTotalCount(total);
  return json(200, await toApiTrackedTimes(ctx.services, ctx.viewer, times, thisRepository(ctx)));
}

export function registerTimeTrackingRoutes(api: ApiRegistry): void {
  // Gitea's issue routes: repoAssignment (404 when the repository is hidden), the issue's unit checked by the service.
  const onIssue = { scope: 'issue', auth: 'required', repo: { mode: 'read' } } as const;
  const changeOnIssue = { ...onIssue, repo: { mode: 'read', archived: 'refuse' } } as const;
  // The repository's lists: mustEnableIssues.
  const onRepository = { scope: 'repository', auth: 'required', repo: { unit: UNIT_ISSUES, mode: 'read' }, errors: TIME_ERRORS } as const;
  const ownLists = { scope: 'user', auth: 'required', denyPublicOnly: true } as const;

  api.route({
    ...onIssue,
    errors: ISSUE_LIST_ERRORS,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/{index}/times',
    operationId: 'issueTrackedTimes',
    handler: (ctx) => listTimes(ctx, issueIndexOf(ctx)),
  });

  api.route({
    ...changeOnIssue,
    errors: TIME_ERRORS,
    method: 'post',
    path: '/repos/{owner}/{repo}/issues/{index}/times',
    operationId: 'issueAddTime',
    body: AddTimeOption,
    handler: (ctx) =>
      answering(async () => {
        const doer = doerOf(ctx);
        const { body } = ctx;
        if (body.time === 0) throw HttpError.unprocessable('[Time]: Required');
        // Gitea looks the name up only for repository admins and site admins (others' is ignored), so only then can
        // it name nobody.
        const { permission } = repoOf(ctx);
        const honoured = body.user_name !== '' && body.user_name !== doer.login && (doer.isAdmin || accessAtLeast(permission.accessMode, 'admin'));
        const userId = honoured ? await userIdByName(ctx, body.user_name, (message) => new HttpError(404, message)) : 0;
        const created = body.created === undefined || body.created.getTime() === GO_ZERO_TIME_MS ? undefined : body.created;
        const { time } = await ctx.services.clients.timeTracking.addTrackedTime({
          scope: repoScopeOf(ctx),
          issueIndex: issueIndexOf(ctx),
          // Past int53 it is no time anyone spent: the service's range check answers for it.
          time: Number.isSafeInteger(body.time) ? body.time : Math.sign(body.time) * Number.MAX_SAFE_INTEGER,
          created,
          userId,
        });
        if (time === undefined) throw new Error('AddTrackedTime answered without the time');
        const [converted] = await toApiTrackedTimes(ctx.services, ctx.viewer, [time], thisRepository(ctx));
        return json(200, converted);
      }),
  });

  api.route({
    ...changeOnIssue,
    errors: TIME_ERRORS,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}/times',
    operationId: 'issueResetTime',
    handler: (ctx) =>
      answering(async () => {
        await ctx.services.clients.timeTracking.resetTrackedTimes({ scope: repoScopeOf(ctx), issueIndex: issueIndexOf(ctx) });
        return noContent();
      }),
  });

  api.route({
    ...changeOnIssue,
    errors: TIME_ERRORS,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}/times/{id}',
    operationId: 'issueDeleteTime',
    handler: (ctx) =>
      answering(async () => {
        await ctx.services.clients.timeTracking.deleteTrackedTime({ scope: repoScopeOf(ctx), issueIndex: issueIndexOf(ctx), id: pathInt64(ctx.params.id) });
        return noContent();
      }),
  });

  api.route({
    ...onRepository,
    method: 'get',
    path: '/repos/{owner}/{repo}/times',
    operationId: 'repoTrackedTimes',
    handler: (ctx) => listTimes(ctx, 0),
  });

  api.route({
    ...onRepository,
    method: 'get',
    path: '/repos/{owner}/{repo}/times/{user}',
    operationId: 'userTrackedTimes',
    handler: async (ctx) => {
      // APIErrorNotFound(err): "not found" with the lookup's error.
      const userId = await userIdByName(ctx, ctx.params.user ?? '', (message) => HttpError.notFound('not found', [message]));
      const { times } = await ctx.services.clients.timeTracking.listTrackedTimes({
        scope: repoScopeOf(ctx),
        issueIndex: 0,
        userId,
        userFilterNeedsAdmin: true,
      });
      return json(200, await toApiTrackedTimes(ctx.services, ctx.viewer, times, thisRepository(ctx)));
    },
  });

  api.route({
    ...ownLists,
    method: 'get',
    path: '/user/times',
    operationId: 'userCurrentTrackedTimes',
    handler: async (ctx) => {
      const { before, since } = queryBeforeSince(ctx.query);
      const request = { viewer: ctx.viewer, since, before, page: pageOf(ctx) };
      const first = await ctx.services.clients.timeTracking.listUserTrackedTimes(request);
      const { readable, repositories, coversAll } = await readableRepositories(ctx, first.repositories);
      // Asked again only when some of the caller's times lie where they may no longer look.
      const { times, total } = coversAll ? first : await ctx.services.clients.timeTracking.listUserTrackedTimes({ ...request, readable });
      ctx.setTotalCount(total);
      return json(200, await toApiTrackedTimes(ctx.services, ctx.viewer, times, repositories));
    },
  });

  api.route({
    ...ownLists,
    method: 'get',
    path: '/user/stopwatches',
    operationId: 'userGetStopWatches',
    handler: async (ctx) => {
      const request = { viewer: ctx.viewer, page: pageOf(ctx) };
      const first = await ctx.services.clients.timeTracking.listStopwatches(request);
      const { readable, repositories, coversAll } = await readableRepositories(ctx, first.repositories);
      const { stopwatches, total } = coversAll ? first : await ctx.services.clients.timeTracking.listStopwatches({ ...request, readable });
      ctx.setTotalCount(total);
      return json(200, toApiStopWatches(stopwatches, repositories, new Date()));
    },
  });

  // Start and stop answer 201 without a body, delete 204 (Gitea's issue_stopwatch.go).
  const stopwatchRoutes = [
    { method: 'post', path: 'start', operationId: 'issueStartStopWatch', rpc: 'startStopwatch', status: 201 },
    { method: 'post', path: 'stop', operationId: 'issueStopStopWatch', rpc: 'stopStopwatch', status: 201 },
    { method: 'delete', path: 'delete', operationId: 'issueDeleteStopWatch', rpc: 'cancelStopwatch', status: 204 },
  ] as const;
  for (const { method, path, operationId, rpc, status } of stopwatchRoutes) {
    api.route({
      ...changeOnIssue,
      errors: STOPWATCH_ERRORS,
      method,
      path: `/repos/{owner}/{repo}/issues/{index}/stopwatch/${path}`,
      operationId,
      handler: (ctx) =>
        answering(async () => {
          await ctx.services.clients.timeTracking[rpc]({ scope: repoScopeOf(ctx), issueIndex: issueIndexOf(ctx) });
          return { status };
        }, true),
    });
  }
}
