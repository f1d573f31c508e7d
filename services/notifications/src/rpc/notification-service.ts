/**
 * NotificationService: the viewer's own notification threads (proto/cairn/notifications/v1/notifications_service.proto),
 * as Gitea's routers/api/v1/notify/{user,repo,threads}.go serve them.
 */
import { toCairnError } from '@cairn/db';
import {
  type NotificationServiceService,
  type NotificationThread,
  SubjectType as ProtoSubjectType,
  ThreadStatus as ProtoThreadStatus,
} from '@cairn/proto/cairn/notifications/v1/notifications_service';
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import { type AsyncServiceOf, CairnError, isCairnError } from '@cairn/rpc';
import { type Viewer, isSignedIn, viewerFromActor } from '../domain/viewer';
import {
  type ThreadFilter,
  type ThreadRow,
  countThreads,
  countUnread,
  getThread,
  listThreads,
  setThreadStatus,
  setThreadsStatus,
} from '../store/thread-queries';
import { ThreadStatus } from '../store/threads';
import type { NotificationsContext } from './context';

/** Gitea compares unix seconds: a bound of second s covers the whole second. */
const SECOND_MS = 1000;

function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / SECOND_MS) * SECOND_MS);
}

/** `updated <= t` in Gitea's whole seconds is `updated_at < floor(t) + 1 s`. */
function endOfSecond(date: Date): Date {
  return new Date(wholeSecond(date).getTime() + SECOND_MS);
}

function signedIn(actor: Parameters<typeof viewerFromActor>[0]): Viewer {
  const viewer = viewerFromActor(actor);
  if (!isSignedIn(viewer)) throw CairnError.unauthenticated('notifications are a signed-in user\'s own', { reason: 'viewer_required' });
  return viewer;
}

function statusOf(status: ProtoThreadStatus): ThreadStatus {
  switch (status) {
    case ProtoThreadStatus.THREAD_STATUS_UNREAD:
      return ThreadStatus.unread;
    case ProtoThreadStatus.THREAD_STATUS_READ:
      return ThreadStatus.read;
    case ProtoThreadStatus.THREAD_STATUS_PINNED:
      return ThreadStatus.pinned;
    default:
      throw CairnError.invalid(`unknown thread status ${status}`, { reason: 'status_invalid' });
  }
}

function subjectTypeOf(type: ProtoSubjectType): number {
  if (type >= ProtoSubjectType.SUBJECT_TYPE_ISSUE && type <= ProtoSubjectType.SUBJECT_TYPE_REPOSITORY) return type;
  throw CairnError.invalid(`unknown subject type ${type}`, { reason: 'subject_type_invalid' });
}

/** The distinct statuses asked for, or `fallback` when none (Gitea's defaults). */
function statusesOf(asked: readonly ProtoThreadStatus[], fallback: readonly ThreadStatus[]): ThreadStatus[] {
  const statuses = [...new Set(asked.map(statusOf))];
  return statuses.length === 0 ? [...fallback] : statuses;
}

function pageOf(page: PageRequest | undefined): { offset: number; limit: number } {
  const number = page?.page ?? 1;
  const limit = page?.limit ?? 0;
  if (number < 1) throw CairnError.invalid(`page must be positive [page: ${number}]`, { reason: 'page_invalid' });
  if (limit < 1) throw CairnError.invalid(`limit must be positive [limit: ${limit}]`, { reason: 'limit_invalid' });
  return { offset: (number - 1) * limit, limit };
}

export function toProtoThread(row: ThreadRow): NotificationThread {
  return {
    id: row.id,
    userId: row.user_id,
    repoId: row.repo_id,
    subjectType: row.subject_type as ProtoSubjectType,
    issueId: row.issue_id,
    issueIndex: row.issue_index,
    commitId: row.commit_id,
    commentId: row.comment_id,
    status: row.status as ProtoThreadStatus,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createNotificationService(context: NotificationsContext): AsyncServiceOf<typeof NotificationServiceService> {
  const { db } = context;

  /**
   * The thread, when the viewer may see it: Gitea's getThread answers 404 for none and 403 for another user's,
   * except to site admins (who may read it; changing it is the owner's alone, see markThread).
   */
  async function threadFor(viewer: Viewer, id: number, change: boolean): Promise<ThreadRow> {
    if (id < 1) throw CairnError.notFound(`notification thread ${id} does not exist`, { reason: 'thread_not_found' });
    const thread = await getThread(db.pool, id);
    if (thread === null) throw CairnError.notFound(`notification thread ${id} does not exist`, { reason: 'thread_not_found' });
    const mayRead = thread.user_id === viewer.id || (!change && viewer.isAdmin);
    if (!mayRead) {
      throw CairnError.denied(`only user itself and admin are allowed to read/change this thread ${id}`, { reason: 'thread_not_yours' });
    }
    return thread;
  }

  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw isCairnError(error) ? error : toCairnError(error);
    }
  }

  return {
    async listThreads(request) {
      const viewer = signedIn(request.viewer);
      const { offset, limit } = pageOf(request.page);
      const filter: ThreadFilter = {
        userId: viewer.id,
        // Gitea's default list: unread and pinned (routers/api/v1/notify/notifications.go getFindNotificationOptions).
        statuses: request.all ? undefined : statusesOf(request.statusTypes, [ThreadStatus.unread, ThreadStatus.pinned]),
        subjectTypes: [...new Set(request.subjectTypes.map(subjectTypeOf))],
        since: request.since === undefined ? undefined : wholeSecond(request.since),
        beforeExclusive: request.before === undefined ? undefined : endOfSecond(request.before),
        repoId: request.repoId,
      };
      return guarded(async () => {
        const [rows, total] = await Promise.all([listThreads(db.pool, filter, offset, limit), countThreads(db.pool, filter)]);
        return { threads: rows.map(toProtoThread), total };
      });
    },

    async countUnread(request) {
      const viewer = signedIn(request.viewer);
      return guarded(async () => ({ unread: await countUnread(db.pool, viewer.id) }));
    },

    async getThread(request) {
      const viewer = signedIn(request.viewer);
      return guarded(async () => ({ thread: toProtoThread(await threadFor(viewer, request.id, false)) }));
    },

    async markThread(request) {
      const viewer = signedIn(request.viewer);
      const status = statusOf(request.toStatus);
      return guarded(async () => {
        // Gitea lets a site admin past getThread, then SetNotificationStatus refuses another user's thread (a 500
        // there): here the same refusal is the 403 getThread gives anyone else.
        const thread = await threadFor(viewer, request.id, true);
        const changed = await db.pool.transaction((tx) => setThreadStatus(tx, thread.id, status));
        return { thread: toProtoThread(changed) };
      });
    },

    async markThreads(request) {
      const viewer = signedIn(request.viewer);
      const status = statusOf(request.toStatus);
      // Gitea's default for PUT: unread threads only (routers/api/v1/notify/user.go ReadNotifications).
      const statuses = request.all ? undefined : statusesOf(request.statusTypes, [ThreadStatus.unread]);
      const beforeExclusive = request.lastReadAt === undefined ? undefined : endOfSecond(request.lastReadAt);
      return guarded(async () => {
        const rows = await db.pool.transaction((tx) => setThreadsStatus(tx, { userId: viewer.id, statuses, beforeExclusive, repoId: request.repoId }, status));
        return { threads: rows.map(toProtoThread) };
      });
    },
  };
}
