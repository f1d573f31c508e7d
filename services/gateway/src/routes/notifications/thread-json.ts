/**
 * Threads as Gitea's NotificationThread JSON, hydrated for the whole page with one batch per kind of data: the
 * repositories as the caller may read them now (repos' BatchGetRepositories leaves out the others), their JSON
 * (toApiRepositories' batches), and what the threads show of their issues as they are now, newest comments included
 * (issues' BatchGetIssueSubjects: one statement, no bodies, labels or assignees).
 */
import { HttpError } from '@cairn/http';
import { type ApiNotificationThread, type NotificationSubjectData, toApiNotificationThread, toApiRepositories } from '@cairn/gitea-json';
import { type NotificationThread, SubjectType } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import type { IssueSubject } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { ApiContext } from '../../api/types';

interface Hydrated {
  /** Per repository id, when the caller may read it. */
  repositories: Map<number, NonNullable<NotificationSubjectData['repository']>>;
  issues: Map<number, IssueSubject>;
}

async function hydrate<B>(ctx: ApiContext<B>, threads: readonly NotificationThread[]): Promise<Hydrated> {
  const repoIds = [...new Set(threads.map((thread) => thread.repoId))];
  const issueIds = [
    ...new Set(
      threads
        .filter((thread) => thread.issueId > 0 && (thread.subjectType === SubjectType.SUBJECT_TYPE_ISSUE || thread.subjectType === SubjectType.SUBJECT_TYPE_PULL))
        .map((thread) => thread.issueId),
    ),
  ];
  const { clients } = ctx.services;
  const [readable, issues] = await Promise.all([
    repoIds.length === 0 ? { repositories: [] } : clients.repos.batchGetRepositories({ viewer: ctx.viewer, ids: repoIds }),
    issueIds.length === 0 ? { subjects: [] } : clients.issues.batchGetIssueSubjects({ ids: issueIds }),
  ]);
  const found = readable.repositories.filter((item) => item.repository !== undefined && item.permission !== undefined);
  const json = await toApiRepositories(ctx.services, ctx.viewer, found);
  const repositories: Hydrated['repositories'] = new Map();
  found.forEach((item, at) => {
    if (item.repository !== undefined) repositories.set(item.repository.id, { record: item.repository, json: json[at] });
  });
  return {
    repositories,
    issues: new Map(issues.subjects.map((issue) => [issue.id, issue])),
  };
}

function dataOf(thread: NotificationThread, hydrated: Hydrated): NotificationSubjectData {
  const repository = hydrated.repositories.get(thread.repoId);
  // An issue is shown only with its repository, and only the one the thread names (ids are global).
  const issue = repository === undefined ? undefined : hydrated.issues.get(thread.issueId);
  if (issue?.repoId !== thread.repoId) return { repository };
  return { repository, issue };
}

/**
 * The threads whose repository the caller may still read, in their order. The others are left out rather than shown
 * (their repository and subject would tell what the caller may no longer see); a page may then hold fewer than
 * `limit` threads while X-Total-Count, from the maintained counters, still counts them.
 */
export async function toApiThreadList<B>(ctx: ApiContext<B>, threads: readonly NotificationThread[]): Promise<ApiNotificationThread[]> {
  const hydrated = await hydrate(ctx, threads);
  const rootUrl = ctx.services.config.server.rootUrl;
  return threads.filter((thread) => hydrated.repositories.has(thread.repoId)).map((thread) => toApiNotificationThread(thread, dataOf(thread, hydrated), rootUrl));
}

/**
 * One thread (get, mark). A thread whose repository the caller may no longer read answers 404, as Cairn answers
 * anything that exists but may not be seen: its repository and subject are not shown, and Gitea's thread has both.
 */
export async function toApiThread<B>(ctx: ApiContext<B>, thread: NotificationThread): Promise<ApiNotificationThread> {
  const hydrated = await hydrate(ctx, [thread]);
  if (!hydrated.repositories.has(thread.repoId)) throw HttpError.notFound();
  return toApiNotificationThread(thread, dataOf(thread, hydrated), ctx.services.config.server.rootUrl);
}

/** 404 unless the caller may read the thread's repository now (checked before a thread is changed). */
export async function assertThreadShown<B>(ctx: ApiContext<B>, thread: NotificationThread): Promise<void> {
  const { repositories } = await ctx.services.clients.repos.batchGetRepositories({ viewer: ctx.viewer, ids: [thread.repoId] });
  if (!repositories.some((item) => item.repository?.id === thread.repoId)) throw HttpError.notFound();
}
