/**
 * The mail outbox's contract: the event consumers queue one job per recipient and event in the transaction that
 * records the event (processOnce), and only while `[mailer] ENABLED` (Gitea queues no mail when the mailer is off, so
 * switching it on later sends nothing old). The sender (mail/sender.ts) renders and sends each job after commit,
 * applying the recipient's e-mail preference as it is then (Gitea's services/mailer/mail_issue.go).
 */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';

/** What a mail is about (Gitea's mail templates: issue/default, repo/transfer). */
export type MailJobKind = 'issue' | 'transfer';

/**
 * Why the recipient gets it, which their preference weighs (Gitea's EmailNotificationsPreference): `enabled` takes
 * all but `own`, `onmention` only `mention`, `disabled` none, `andyourown` all including `own` (the actor's own
 * action). `transfer` mails are sent whatever the preference (Gitea's SendRepoTransferNotifyMail does not check it).
 */
export type MailReason = 'participant' | 'watcher' | 'mention' | 'assignee' | 'reviewer' | 'own' | 'transfer';

/** Gitea's ActionType of an issue mail (mail_issue.go composeIssueCommentMessages: subject and template by action). */
export type IssueMailAction =
  | 'new'
  | 'comment'
  | 'close'
  | 'reopen'
  | 'merge'
  | 'assign'
  | 'review_request'
  | 'review_approved'
  | 'review_rejected'
  | 'review_comment'
  | 'push';

/** An issue or pull request mail's data: what the event said, so the mail shows the change as it was. */
export interface IssueMailData {
  action: IssueMailAction;
  actorId: number;
  repoId: number;
  /** `owner/name` when the event happened. */
  repoFullName: string;
  issueId: number;
  issueIndex: number;
  isPull: boolean;
  title: string;
  /** The comment's (or new issue's, review's) Markdown body; '' when none. */
  body: string;
  /** The comment's id, 0 when none (its anchor `#issuecomment-<id>` in the link). */
  commentId: number;
}

/** A pending transfer's mail to its recipient (the new owner, or an organization's members who may accept it). */
export interface TransferMailData {
  actorId: number;
  repoId: number;
  /** `owner/name` before the transfer. */
  repoFullName: string;
  /** The user or organization it goes to. */
  recipientOwnerId: number;
  recipientOwnerName: string;
}

export type MailJob =
  | { kind: 'issue'; eventId: string; recipientId: number; reason: MailReason; data: IssueMailData }
  | { kind: 'transfer'; eventId: string; recipientId: number; reason: 'transfer'; data: TransferMailData };

/** Queues the jobs (once per event and recipient: a redelivered event adds nothing); returns how many are new. */
export async function queueMailJobs(tx: DatabaseTransactionConnection, jobs: readonly MailJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = jobs.map((job) => ({
    job_key: `${job.eventId}:${job.recipientId}`,
    kind: job.kind,
    recipient_id: job.recipientId,
    reason: job.reason,
    data: job.data,
  }));
  const result = await tx.query(sql.unsafe`
    INSERT INTO mail_jobs (job_key, kind, recipient_id, reason, data)
    SELECT r.job_key, r.kind, r.recipient_id, r.reason, r.data
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(job_key text, kind text, recipient_id bigint, reason text, data jsonb)
    ON CONFLICT (job_key) DO NOTHING`);
  return result.rowCount;
}
