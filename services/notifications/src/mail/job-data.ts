/** The shapes of mail_jobs.data per kind (mail/jobs.ts), checked when a job is read back: the row is a boundary. */
import { z } from '@cairn/db';
import type { IssueMailData, MailReason, TransferMailData } from './jobs';

const issueData = z.object({
  action: z.enum(['new', 'comment', 'close', 'reopen', 'merge', 'assign', 'review_request', 'review_approved', 'review_rejected', 'review_comment', 'push']),
  actorId: z.number(),
  repoId: z.number(),
  repoFullName: z.string(),
  issueId: z.number(),
  issueIndex: z.number(),
  isPull: z.boolean(),
  title: z.string(),
  body: z.string(),
  commentId: z.number(),
});

const transferData = z.object({
  actorId: z.number(),
  repoId: z.number(),
  repoFullName: z.string(),
  recipientOwnerId: z.number(),
  recipientOwnerName: z.string(),
});

const reasons = z.enum(['participant', 'watcher', 'mention', 'assignee', 'reviewer', 'own', 'transfer']);

export type ReadMailJob =
  | { kind: 'issue'; reason: MailReason; data: IssueMailData }
  | { kind: 'transfer'; reason: MailReason; data: TransferMailData }
  | { problem: string };

/** The job's kind, reason and data, or what is wrong with them (such a job can never be sent). */
export function readMailJob(kind: string, reason: string, data: unknown): ReadMailJob {
  const why = reasons.safeParse(reason);
  if (!why.success) return { problem: `unknown reason ${JSON.stringify(reason)}` };
  if (kind === 'issue') {
    const parsed = issueData.safeParse(data);
    return parsed.success ? { kind, reason: why.data, data: parsed.data } : { problem: `issue mail data: ${parsed.error.message}` };
  }
  if (kind === 'transfer') {
    const parsed = transferData.safeParse(data);
    return parsed.success ? { kind, reason: why.data, data: parsed.data } : { problem: `transfer mail data: ${parsed.error.message}` };
  }
  return { problem: `unknown kind ${JSON.stringify(kind)}` };
}
