/**
 * Which issues-service events notify, and whom they name (Gitea's services/uinotification/notify.go and the mailer's
 * services/mailer/notify.go): an event becomes an IssueNotice — the issue, who acted, whether the issue's whole
 * audience hears of it (Gitea's `ReceiverID 0` push), and the single receivers it names (mentioned users, an
 * assignee, requested reviewers and teams). Pure: no I/O.
 *
 * A pull request's issue half publishes the issue events too (cairn.issue.opened, .closed — also on merge —,
 * .reopened, .assigned), and those carry the mentions and the merge time; so pull requests are notified from them,
 * and cairn.pull_request.opened / .closed / .reopened / .merged are ignored (each change would notify twice).
 */
import type { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { isWorkInProgress } from '@cairn/gitea-json';
import type { IssueMailAction } from '../mail/jobs';

/** The issue (or pull request) a notice is about, as the event had it. */
export interface NoticeIssue {
  id: number;
  repoId: number;
  index: number;
  isPull: boolean;
  title: string;
  posterId: number;
  assigneeIds: readonly number[];
}

/** A single receiver an event names (Gitea's `ReceiverID > 0` pushes): told whatever their subscription. */
export interface NamedReceiver {
  userId: number;
  reason: 'mention' | 'assignee' | 'reviewer';
}

export interface IssueNotice {
  kind: 'notify';
  actorId: number;
  issue: NoticeIssue;
  /** The comment a thread points at (a new comment, a review's timeline comment); 0 when none. */
  commentId: number;
  /** The issue's subscribers, participants and the repository's watchers hear of it. */
  toAudience: boolean;
  /**
   * Repository watchers hear of it even when the pull request is a work in progress: Gitea's NewPullRequest adds
   * them unconditionally, while CreateOrUpdateIssueNotifications skips them for a WIP pull request.
   */
  watchersDespiteWip: boolean;
  receivers: readonly NamedReceiver[];
  /** Teams asked to review: each member is a receiver but the pull request's poster (Gitea's TeamReviewRequest). */
  reviewerTeamIds: readonly number[];
  /** The mail Gitea sends for it (undefined: none, e.g. a WIP prefix dropped only makes threads). */
  mail: { action: IssueMailAction; body: string } | undefined;
}

/** cairn.issue.deleted: the issue's threads go (Gitea's DeleteIssue deletes its notifications). */
export interface IssueGone {
  kind: 'issue_deleted';
  issueId: number;
}

function noticeIssue(issue: Issue | undefined): NoticeIssue | undefined {
  if (issue === undefined || issue.id <= 0 || issue.repoId <= 0) return undefined;
  return {
    id: issue.id,
    repoId: issue.repoId,
    index: issue.index,
    isPull: issue.isPull,
    title: issue.title,
    posterId: issue.posterId,
    assigneeIds: issue.assigneeIds,
  };
}

function mentions(ids: readonly number[]): NamedReceiver[] {
  return ids.filter((id) => id > 0).map((userId) => ({ userId, reason: 'mention' as const }));
}

function notice(actorId: number, issue: NoticeIssue, fields: Partial<Omit<IssueNotice, 'kind' | 'actorId' | 'issue'>>): IssueNotice {
  return {
    kind: 'notify',
    actorId,
    issue,
    commentId: fields.commentId ?? 0,
    toAudience: fields.toAudience ?? false,
    watchersDespiteWip: fields.watchersDespiteWip ?? false,
    receivers: fields.receivers ?? [],
    reviewerTeamIds: fields.reviewerTeamIds ?? [],
    mail: fields.mail,
  };
}

/** cairn.issue.* (IssueEvent). */
export function issueEventNotice(subject: string, event: IssueEvent): IssueNotice | IssueGone | undefined {
  const issue = noticeIssue(event.issue);
  if (issue === undefined) return undefined;
  const actorId = event.meta?.actorId ?? 0;
  switch (subject) {
    case 'cairn.issue.opened':
      // Gitea's NewIssue / NewPullRequest: the audience, and each mentioned user.
      return notice(actorId, issue, {
        toAudience: true,
        watchersDespiteWip: issue.isPull,
        receivers: mentions(event.mentionedUserIds),
        mail: { action: 'new', body: event.issue?.body ?? '' },
      });
    case 'cairn.issue.closed': {
      // A merge closes the pull request's issue in the same transaction: Gitea's MergePullRequest notifies for it.
      const merged = issue.isPull && event.issue?.pullMergedAt !== undefined;
      return notice(actorId, issue, { toAudience: true, mail: { action: merged ? 'merge' : 'close', body: '' } });
    }
    case 'cairn.issue.reopened':
      return notice(actorId, issue, { toAudience: true, mail: { action: 'reopen', body: '' } });
    case 'cairn.issue.assigned': {
      // Gitea's IssueChangeAssignee: each added assignee, unless they assigned themselves.
      const added = event.addedAssigneeIds.filter((id) => id > 0 && id !== actorId);
      if (added.length === 0) return undefined;
      return notice(actorId, issue, { receivers: added.map((userId) => ({ userId, reason: 'assignee' as const })), mail: { action: 'assign', body: '' } });
    }
    case 'cairn.issue.edited':
      // Gitea's IssueChangeTitle: a pull request whose WIP prefix is dropped is ready; its audience hears of it.
      if (issue.isPull && event.changed.includes('title') && isWorkInProgress(event.previousTitle) && !isWorkInProgress(issue.title)) {
        return notice(actorId, issue, { toAudience: true });
      }
      return undefined;
    case 'cairn.issue.deleted':
      return { kind: 'issue_deleted', issueId: issue.id };
    default:
      return undefined;
  }
}

/** cairn.issue_comment.created (Gitea's CreateIssueComment): the audience and each mentioned user. */
export function commentEventNotice(subject: string, event: IssueCommentEvent): IssueNotice | undefined {
  if (subject !== 'cairn.issue_comment.created') return undefined;
  const issue = noticeIssue(event.issue);
  const comment = event.comment;
  if (issue === undefined || comment === undefined) return undefined;
  return notice(event.meta?.actorId ?? 0, issue, {
    commentId: comment.id,
    toAudience: true,
    receivers: mentions(event.mentionedUserIds),
    mail: { action: 'comment', body: comment.body },
  });
}

/**
 * cairn.pull_request.review_requested (Gitea's PullRequestReviewRequest): each reviewer, each requested team's members;
 * cairn.pull_request.synchronized: the audience.
 */
export function pullEventNotice(subject: string, event: PullRequestEvent): IssueNotice | undefined {
  if (subject !== 'cairn.pull_request.review_requested' && subject !== 'cairn.pull_request.synchronized') return undefined;
  const issue = noticeIssue(event.pull?.issue);
  if (issue === undefined) return undefined;
  const actorId = event.meta?.actorId ?? 0;
  // New commits on the head (Gitea's PullRequestPushCommits, both the notifier's and the mailer's): the audience.
  if (subject === 'cairn.pull_request.synchronized') return notice(actorId, issue, { toAudience: true, mail: { action: 'push', body: '' } });
  const reviewers = event.reviewerIds.filter((id) => id > 0).map((userId) => ({ userId, reason: 'reviewer' as const }));
  const teams = event.reviewerTeamIds.filter((id) => id > 0);
  if (reviewers.length === 0 && teams.length === 0) return undefined;
  return notice(actorId, issue, { receivers: reviewers, reviewerTeamIds: teams, mail: { action: 'review_request', body: '' } });
}

/** The mail action of a submitted review (Gitea's ActionApprovePullRequest, ActionRejectPullRequest, ActionCommentPull). */
const REVIEW_ACTIONS: Readonly<Record<string, IssueMailAction>> = {
  APPROVED: 'review_approved',
  REQUEST_CHANGES: 'review_rejected',
  COMMENT: 'review_comment',
};

/** cairn.pull_review.submitted (Gitea's PullRequestReview): the audience, pointing at the review's comment. */
export function reviewEventNotice(subject: string, event: PullReviewEvent): IssueNotice | undefined {
  if (subject !== 'cairn.pull_review.submitted') return undefined;
  const issue = noticeIssue(event.pull?.issue);
  const review = event.review;
  if (issue === undefined || review === undefined) return undefined;
  const action = REVIEW_ACTIONS[review.state];
  // A pending review is nobody's news yet; a request is cairn.pull_request.review_requested's.
  if (action === undefined) return undefined;
  return notice(event.meta?.actorId ?? 0, issue, {
    commentId: review.timelineCommentId,
    toAudience: true,
    receivers: mentions(event.mentionedUserIds),
    mail: { action, body: review.body },
  });
}
