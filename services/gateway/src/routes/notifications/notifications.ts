/**
 * The signed-in user's notification threads (routers/api/v1/notify/{user,repo,threads,notifications}.go):
 * `/notifications` (list, mark), `/notifications/new`, `/notifications/threads/{id}` (get, mark) and the same
 * list and mark within one repository. Token required (401); scope `read:`/`write:notification`; public-only tokens
 * are refused on `/notifications…` (Gitea's rejectPublicOnly: a user's notifications mix public and private
 * repositories) and reach only public repositories on the repository variant (checkTokenPublicOnly).
 */
import { HttpError, type GoValues, goFormBool, goFormString } from '@cairn/http';
import { SubjectType, ThreadStatus } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import type { ApiRegistry } from '../../api/registry';
import { pathInt64 } from '../../api/path-int';
import { type ApiContext, type ApiReply, json, repoOf } from '../../api/types';
import { parseGoRfc3339, queryBeforeSince } from '../../issues/before-since';
import { assertThreadShown, toApiThread, toApiThreadList } from './thread-json';

/** Gitea's statusStringToNotificationStatus: trimmed, case-insensitive; anything else is no status. */
function statusOf(text: string): ThreadStatus | undefined {
  switch (text.trim().toLowerCase()) {
    case 'unread':
      return ThreadStatus.THREAD_STATUS_UNREAD;
    case 'read':
      return ThreadStatus.THREAD_STATUS_READ;
    case 'pinned':
      return ThreadStatus.THREAD_STATUS_PINNED;
    default:
      return undefined;
  }
}

/** Gitea's subjectToSource: unknown types are dropped (and none left means no filter, as there). */
function subjectTypeOf(text: string): SubjectType | undefined {
  switch (text.toLowerCase()) {
    case 'issue':
      return SubjectType.SUBJECT_TYPE_ISSUE;
    case 'pull':
      return SubjectType.SUBJECT_TYPE_PULL;
    case 'commit':
      return SubjectType.SUBJECT_TYPE_COMMIT;
    case 'repository':
      return SubjectType.SUBJECT_TYPE_REPOSITORY;
    default:
      return undefined;
  }
}

/** Gitea's ctx.FormStrings: every value of `name` (and of `name[]`). */
function formStrings(query: GoValues, name: string): string[] {
  return [...(query.get(name) ?? []), ...(query.get(`${name}[]`) ?? [])];
}

function defined<T>(values: readonly (T | undefined)[]): T[] {
  return values.filter((value): value is T => value !== undefined);
}

/**
 * `all` and `status-types` as Gitea's statusStringsToNotificationStatuses reads them: with `all`, every status;
 * otherwise the known statuses given, the service's default when none was given — and every status when values were
 * given but none is known (Gitea's filter is then empty, which filters nothing).
 */
function statusFilter(query: GoValues): { all: boolean; statusTypes: ThreadStatus[] } {
  if (goFormBool(query, 'all')) return { all: true, statusTypes: [] };
  const given = formStrings(query, 'status-types');
  const statusTypes = defined(given.map(statusOf));
  return given.length > 0 && statusTypes.length === 0 ? { all: true, statusTypes: [] } : { all: false, statusTypes };
}

/** `to-status`; unknown or missing is read (Gitea's default). */
function toStatusOf(query: GoValues): ThreadStatus {
  return statusOf(goFormString(query, 'to-status')) ?? ThreadStatus.THREAD_STATUS_READ;
}

/** Go's zero time, which Gitea reads as "no limit" (`!tmpLastRead.IsZero()`). */
const GO_ZERO_TIME_MS = new Date(0).setUTCFullYear(1, 0, 1);

/** `last_read_at` (routers/api/v1/notify/user.go ReadNotifications): RFC 3339, a bad one 400 with Go's message. */
function lastReadAtOf(query: GoValues): Date | undefined {
  const text = goFormString(query, 'last_read_at').trim();
  if (text === '') return undefined;
  let date: Date;
  try {
    date = parseGoRfc3339(text);
  } catch (error) {
    throw HttpError.badRequest(error instanceof Error ? error.message : String(error));
  }
  return date.getTime() === GO_ZERO_TIME_MS ? undefined : date;
}

async function listReply<B>(ctx: ApiContext<B>, repoId: number | undefined): Promise<ApiReply> {
  const { before, since } = queryBeforeSince(ctx.query);
  const { page, limit } = ctx.listOptions();
  const subjectTypes = defined(formStrings(ctx.query, 'subject-type').map(subjectTypeOf));
  const { threads, total } = await ctx.services.clients.notifications.listThreads({
    viewer: ctx.viewer,
    ...statusFilter(ctx.query),
    subjectTypes,
    since,
    before,
    repoId,
    page: { page, limit },
  });
  ctx.setLinkHeader(total, limit);
  ctx.setTotalCount(total);
  return json(200, await toApiThreadList(ctx, threads));
}

async function markReply<B>(ctx: ApiContext<B>, repoId: number | undefined): Promise<ApiReply> {
  const lastReadAt = lastReadAtOf(ctx.query);
  // Gitea's default for marking: unread threads (statusStringsToNotificationStatuses(statuses, ["unread"])).
  const { all, statusTypes } = statusFilter(ctx.query);
  const { threads } = await ctx.services.clients.notifications.markThreads({
    viewer: ctx.viewer,
    all,
    statusTypes,
    lastReadAt,
    repoId,
    toStatus: toStatusOf(ctx.query),
  });
  // 205 with the changed threads, as Gitea answers (its description's NotificationThreadList).
  return json(205, await toApiThreadList(ctx, threads));
}

export function registerNotificationRoutes(api: ApiRegistry): void {
  const own = { scope: 'notification', auth: 'required', denyPublicOnly: true } as const;

  api.route({ ...own, method: 'get', path: '/notifications', operationId: 'notifyGetList', handler: (ctx) => listReply(ctx, undefined) });
  api.route({ ...own, method: 'put', path: '/notifications', operationId: 'notifyReadList', handler: (ctx) => markReply(ctx, undefined) });

  api.route({
    ...own,
    method: 'get',
    path: '/notifications/new',
    operationId: 'notifyNewAvailable',
    handler: async (ctx) => {
      const { unread } = await ctx.services.clients.notifications.countUnread({ viewer: ctx.viewer });
      return json(200, { new: unread });
    },
  });

  api.route({
    ...own,
    method: 'get',
    path: '/notifications/threads/{id}',
    operationId: 'notifyGetThread',
    handler: async (ctx) => {
      const { thread } = await ctx.services.clients.notifications.getThread({ viewer: ctx.viewer, id: pathInt64(ctx.params.id) });
      if (thread === undefined) throw new Error('GetThread answered without a thread');
      return json(200, await toApiThread(ctx, thread));
    },
  });

  api.route({
    ...own,
    method: 'patch',
    path: '/notifications/threads/{id}',
    operationId: 'notifyReadThread',
    handler: async (ctx) => {
      const id = pathInt64(ctx.params.id);
      const toStatus = toStatusOf(ctx.query);
      // Looked at first: a thread the caller may not be shown (its repository unreadable now) is not changed either.
      const found = await ctx.services.clients.notifications.getThread({ viewer: ctx.viewer, id });
      if (found.thread === undefined) throw new Error('GetThread answered without a thread');
      await assertThreadShown(ctx, found.thread);
      const { thread } = await ctx.services.clients.notifications.markThread({ viewer: ctx.viewer, id, toStatus });
      if (thread === undefined) throw new Error('MarkThread answered without a thread');
      return json(205, await toApiThread(ctx, thread));
    },
  });

  // The repository is resolved as the caller may read it (404 otherwise); Gitea's group has no unit requirement.
  const inRepo = { scope: 'notification', auth: 'required', repo: { mode: 'read' } } as const;
  api.route({
    ...inRepo,
    method: 'get',
    path: '/repos/{owner}/{repo}/notifications',
    operationId: 'notifyGetRepoList',
    handler: (ctx) => listReply(ctx, repoOf(ctx).repository.id),
  });
  api.route({
    ...inRepo,
    method: 'put',
    path: '/repos/{owner}/{repo}/notifications',
    operationId: 'notifyReadRepoList',
    handler: (ctx) => markReply(ctx, repoOf(ctx).repository.id),
  });
}
