/**
 * notifications' NotificationThread → Gitea's `NotificationThread` JSON (services/convert/notification.go
 * ToNotificationThread), from the thread and what the caller batched for the page: the repository (already Gitea's
 * JSON) and the issue as they are now. Departure: the repository keeps `permissions`, the caller's real ones, where
 * Gitea drops the read-only ones it fills in ("this permission is not correct") — Gitea's description and the
 * validating e2e client require the field.
 */
import { goTime } from '@cairn/http';
import type { IssueSubject } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type NotificationThread, SubjectType, ThreadStatus } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { issueApiUrl, issueHtmlUrl } from './issue';
import { type ApiRepository, repoApiUrl, repoHtmlUrl } from './repository';

/** Gitea's NotificationSubject: every field is written, empty when unknown (no `omitempty` there). */
export interface ApiNotificationSubject {
  title: string;
  url: string;
  latest_comment_url: string;
  html_url: string;
  latest_comment_html_url: string;
  type: 'Issue' | 'Pull' | 'Commit' | 'Repository';
  /** open, closed, merged; '' for commit and repository subjects, as Gitea writes them. */
  state: string;
}

export interface ApiNotificationThread {
  id: number;
  /** Omitted when unknown (Gitea: `omitempty`). */
  repository?: ApiRepository;
  subject: ApiNotificationSubject;
  unread: boolean;
  pinned: boolean;
  updated_at: string;
  url: string;
}

/** What a thread is shown with. */
export interface NotificationSubjectData {
  /** The repository as the caller reads it: both its record (for addresses) and its JSON; unset: shown without. */
  repository?: { record: Repository; json: ApiRepository };
  /**
   * The issue or pull request of an issue or pull subject as it is now, with its newest plain comment (Gitea's
   * Issue.GetLastComment; 0 when none); unset when it is gone.
   */
  issue?: IssueSubject;
}

const SUBJECT_TYPE_NAMES: Readonly<Record<number, ApiNotificationSubject['type']>> = {
  [SubjectType.SUBJECT_TYPE_ISSUE]: 'Issue',
  [SubjectType.SUBJECT_TYPE_PULL]: 'Pull',
  [SubjectType.SUBJECT_TYPE_COMMIT]: 'Commit',
  [SubjectType.SUBJECT_TYPE_REPOSITORY]: 'Repository',
};

/** Gitea's Repository.Link(): `<sub path>/<owner>/<name>`, relative ("rather useless … kept for backwards compat"). */
function repoLink(rootUrl: string, repo: Repository): string {
  const subPath = new URL(rootUrl).pathname.replace(/\/$/, '');
  return `${subPath}/${encodeURIComponent(repo.ownerName)}/${encodeURIComponent(repo.name)}`;
}

function subjectOf(thread: NotificationThread, data: NotificationSubjectData, rootUrl: string): ApiNotificationSubject {
  const type = SUBJECT_TYPE_NAMES[thread.subjectType] ?? 'Issue';
  const subject: ApiNotificationSubject = { title: '', url: '', latest_comment_url: '', html_url: '', latest_comment_html_url: '', type, state: '' };
  const repo = data.repository?.record;
  if (repo === undefined) return subject;
  if (type === 'Repository') {
    return { ...subject, title: `${repo.ownerName}/${repo.name}`, url: repoLink(rootUrl, repo), html_url: repoHtmlUrl(rootUrl, repo) };
  }
  if (type === 'Commit') {
    // Gitea titles it with the commit's message; Cairn has no producer of commit threads yet and shows the address only.
    const url = `${repoHtmlUrl(rootUrl, repo)}/commit/${encodeURIComponent(thread.commitId)}`;
    return { ...subject, url, html_url: url };
  }
  const issue = data.issue;
  if (issue === undefined) return subject;
  const htmlUrl = issueHtmlUrl(rootUrl, repo, issue);
  const state = issue.isPull && issue.merged ? 'merged' : issue.isClosed ? 'closed' : 'open';
  // The issue's newest comment as it is now (convert/notification.go: n.Issue.GetLastComment), not the one the thread
  // was bumped for.
  const latest = issue.lastCommentId;
  return {
    ...subject,
    title: issue.title,
    url: issueApiUrl(rootUrl, repo, issue),
    latest_comment_url: latest === 0 ? '' : `${repoApiUrl(rootUrl, repo)}/issues/comments/${latest}`,
    html_url: htmlUrl,
    latest_comment_html_url: latest === 0 ? '' : `${htmlUrl}#issuecomment-${latest}`,
    state,
  };
}

export function toApiNotificationThread(thread: NotificationThread, data: NotificationSubjectData, rootUrl: string): ApiNotificationThread {
  return {
    id: thread.id,
    ...(data.repository === undefined ? {} : { repository: data.repository.json }),
    subject: subjectOf(thread, data, rootUrl),
    unread: thread.status === ThreadStatus.THREAD_STATUS_UNREAD,
    pinned: thread.status === ThreadStatus.THREAD_STATUS_PINNED,
    updated_at: goTime(thread.updatedAt),
    url: `${rootUrl}api/v1/notifications/threads/${thread.id}`,
  };
}
