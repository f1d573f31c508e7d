/**
 * Who an issue notice reaches, and why (pure; the consumer gathers the lists over gRPC first).
 *
 * Threads follow Gitea's models/activities/notification_list.go createOrUpdateIssueNotifications: for the audience,
 * the issue's explicit subscribers, the repository's watchers (not for a work-in-progress pull request, except when
 * it is opened: services/uinotification/notify.go NewPullRequest) and the participants, without the actor and
 * without whoever explicitly unsubscribed; then each named receiver (mentioned, assignee, reviewer, a requested
 * team's members but the poster). Cairn never notifies the actor, named or not. Then only users who may read the
 * issue's unit now (Gitea's CheckRepoUnitUser: repo.pulls for a pull request, repo.issues otherwise).
 *
 * Mail follows services/mailer/mail_issue.go mailIssueCommentToParticipants: the same audience plus the issue's
 * assignees, the named receivers, and the actor themselves with reason `own` (the sender mails that only for the
 * preference `andyourown`). A reason per recipient: `mention` wins, then the named reason, then participant over
 * watcher.
 */
import type { Permission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { IssueMailData, MailJob, MailReason } from '../mail/jobs';
import { isWorkInProgress } from '@cairn/gitea-json';
import type { IssueNotice } from './issue-notices';

/** The issue's audience as issues and social answer it. */
export interface IssueAudience {
  /** Explicit subscribers (issue_watch rows watching). */
  watcherIds: readonly number[];
  /** Explicit unsubscribers: never told through the audience. */
  unwatcherIds: readonly number[];
  /** Poster and commenters. */
  participantIds: readonly number[];
  /** The repository's watchers (social); empty when not asked (see repoWatchersWanted). */
  repoWatcherIds: readonly number[];
}

export const NO_AUDIENCE: IssueAudience = { watcherIds: [], unwatcherIds: [], participantIds: [], repoWatcherIds: [] };

type Reason = Exclude<MailReason, 'own' | 'transfer'>;

/** Lower wins. */
const PRECEDENCE: Readonly<Record<Reason, number>> = { mention: 0, assignee: 1, reviewer: 1, participant: 2, watcher: 3 };

function add(into: Map<number, Reason>, userId: number, reason: Reason): void {
  if (userId <= 0) return;
  const held = into.get(userId);
  if (held === undefined || PRECEDENCE[reason] < PRECEDENCE[held]) into.set(userId, reason);
}

/** Whether the repository's watchers are part of the notice's audience (so whether to ask social for them). */
export function repoWatchersWanted(notice: IssueNotice): boolean {
  return notice.toAudience && (notice.watchersDespiteWip || !(notice.issue.isPull && isWorkInProgress(notice.issue.title)));
}

/**
 * The users a notice reaches before the read check, with their reason. `forMail` adds the issue's assignees to the
 * audience, as Gitea's mailer does (its threads do not).
 */
export function noticeRecipients(notice: IssueNotice, audience: IssueAudience, teamMemberIds: readonly number[], forMail: boolean): Map<number, Reason> {
  const recipients = new Map<number, Reason>();
  if (notice.toAudience) {
    for (const id of audience.participantIds) add(recipients, id, 'participant');
    for (const id of audience.watcherIds) add(recipients, id, 'watcher');
    if (repoWatchersWanted(notice)) for (const id of audience.repoWatcherIds) add(recipients, id, 'watcher');
    if (forMail) for (const id of notice.issue.assigneeIds) add(recipients, id, 'assignee');
    for (const id of audience.unwatcherIds) recipients.delete(id);
  }
  for (const receiver of notice.receivers) add(recipients, receiver.userId, receiver.reason);
  for (const id of teamMemberIds) if (id !== notice.issue.posterId) add(recipients, id, 'reviewer');
  recipients.delete(notice.actorId);
  return recipients;
}

/** The repository unit a user must be able to read to hear of the issue (Gitea's CheckRepoUnitUser). */
export function unitOf(isPull: boolean): string {
  return isPull ? 'repo.pulls' : 'repo.issues';
}

/**
 * Whether a user with `permission` (repos' answer; undefined for an unknown or deleted user) may read the unit: a
 * disabled unit is absent from the map, so nobody hears of its issues.
 */
export function mayReadUnit(permission: Permission | undefined, unit: string): boolean {
  const mode = permission?.units[unit];
  return mode !== undefined && mode !== 'none';
}

/** The recipients who may read the unit now. */
export function readableOnly<T>(recipients: ReadonlyMap<number, T>, permissions: ReadonlyMap<number, Permission>, isPull: boolean): Map<number, T> {
  const unit = unitOf(isPull);
  return new Map([...recipients].filter(([userId]) => mayReadUnit(permissions.get(userId), unit)));
}

/** Every user whose permission the notice needs: thread and mail recipients, and the actor (their own mail). */
export function usersToCheck(notice: IssueNotice, audience: IssueAudience, teamMemberIds: readonly number[], withMail: boolean): number[] {
  const ids = new Set(noticeRecipients(notice, audience, teamMemberIds, withMail).keys());
  if (withMail && notice.toAudience && notice.actorId > 0) ids.add(notice.actorId);
  return [...ids].sort((a, b) => a - b);
}

/**
 * The mail jobs of a notice: one per readable recipient with their reason, and the actor's own (`own`) when the
 * audience hears of it and the actor may still read it. None when Gitea sends no mail for the event.
 */
export function issueMailJobs(
  eventId: string,
  notice: IssueNotice,
  recipients: ReadonlyMap<number, Reason>,
  actorMayRead: boolean,
  repoFullName: string,
): MailJob[] {
  if (notice.mail === undefined) return [];
  const data: IssueMailData = {
    action: notice.mail.action,
    actorId: notice.actorId,
    repoId: notice.issue.repoId,
    repoFullName,
    issueId: notice.issue.id,
    issueIndex: notice.issue.index,
    isPull: notice.issue.isPull,
    title: notice.issue.title,
    body: notice.mail.body,
    commentId: notice.commentId,
  };
  const jobs: MailJob[] = [...recipients].map(([recipientId, reason]) => ({ kind: 'issue', eventId, recipientId, reason, data }));
  if (notice.toAudience && actorMayRead && notice.actorId > 0) jobs.push({ kind: 'issue', eventId, recipientId: notice.actorId, reason: 'own', data });
  return jobs;
}
