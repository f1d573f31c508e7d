/**
 * The mail sender: claims due mail_jobs (store/mail-jobs.ts, leased), looks the recipient up in accounts as they
 * are now, applies their e-mail preference to the job's reason (domain/mail-preference.ts), renders
 * (mail/templates.ts) and sends (mail/transports.ts); then marks the job sent, skipped, to be retried with backoff,
 * or given up after `[mailer] SEND_ATTEMPTS`. Woken by the consumers after they commit jobs (`wake()`), and polling
 * as a backstop — an SMTP outage delays mail, it loses none (the job stays pending until the server answers).
 *
 * "Sent once": a job is claimed by one sender at a time (the lease, fenced by the attempt count) and marked sent
 * right after the SMTP server accepted it, so a redelivered event or a second replica sends nothing twice. A crash
 * between the server's acceptance and the mark leaves the job pending: it is sent once more after the lease, with
 * the same Message-ID (derived from the job key), so the copy is recognisable and mail clients fold it.
 */
import { createHash } from 'node:crypto';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { startClaimLoop } from '@cairn/service';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { mayReceiveMail, preferenceAllows } from '../domain/mail-preference';
import { type ClaimedMailJob, type MailJobOutcome, claimDueMailJobs, recordMailOutcome } from '../store/mail-jobs';
import { readMailJob } from './job-data';
import { type MailSite, type RenderedMail, renderIssueMail, renderTransferMail } from './templates';
import type { MailTransport, MailerSettings } from './transports';

export interface MailSender {
  /** Looks for due jobs now (the consumers committed some) instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/** Accounts as the sender needs them: every detail of the users it mails (read as the system). */
export interface MailUsers {
  batchGetUsers(ids: readonly number[]): Promise<readonly User[]>;
}

export interface MailSenderOptions {
  db: Database;
  logger: Logger;
  settings: MailerSettings;
  site: MailSite;
  transport: MailTransport;
  users: MailUsers;
  pollIntervalMs?: number;
  concurrency?: number;
  /** How long a claim holds a job; outlasts an SMTP exchange (connection, greeting and socket timeouts). */
  leaseMs?: number;
  maxBackoffMs?: number;
}

/** `<hash of the job key>.mail@<ROOT_URL's host>`: the same for every attempt of one job. */
export function messageIdOf(jobKey: string, rootUrl: string): string {
  return `<${createHash('sha256').update(jobKey).digest('hex').slice(0, 40)}.mail@${new URL(rootUrl).hostname}>`;
}

/** An issue thread's reference (Gitea's createReference: `<owner/repo/issues/N@host>`), so clients group its mails. */
function issueReference(repoFullName: string, isPull: boolean, index: number, rootUrl: string): string {
  return `<${repoFullName}/${isPull ? 'pulls' : 'issues'}/${index}@${new URL(rootUrl).hostname}>`;
}

export function startMailSender(options: MailSenderOptions): MailSender {
  const { db, logger, settings, site, transport, users } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const maxBackoffMs = options.maxBackoffMs ?? 3_600_000;

  const failed = (job: ClaimedMailJob, error: unknown): MailJobOutcome => {
    const message = error instanceof Error ? error.message : String(error);
    if (job.attempts >= settings.sendAttempts) return { kind: 'givenUp', error: message };
    return { kind: 'retry', retryInMs: Math.min(settings.retryBackoff * 2 ** (job.attempts - 1), maxBackoffMs), error: message };
  };

  const attempt = async (job: ClaimedMailJob): Promise<MailJobOutcome> => {
    const read = readMailJob(job.kind, job.reason, job.data);
    // Nothing about such a job will change by trying again.
    if ('problem' in read) return { kind: 'givenUp', error: read.problem };
    const ids = new Set([job.recipientId, read.data.actorId]);
    if (read.kind === 'transfer') ids.add(read.data.recipientOwnerId);
    let found: readonly User[];
    try {
      found = await users.batchGetUsers([...ids]);
    } catch (error) {
      return failed(job, error);
    }
    const byId = new Map(found.map((user) => [user.id, user]));
    const recipient = byId.get(job.recipientId);
    if (recipient === undefined || !mayReceiveMail(recipient)) return { kind: 'skipped', why: 'the recipient cannot receive mail (deleted, inactive, prohibited from signing in, or no address)' };
    if (!preferenceAllows(recipient.emailNotificationsPreference, read.reason)) {
      return { kind: 'skipped', why: `the recipient's e-mail preference ${recipient.emailNotificationsPreference} declines ${read.reason} mail` };
    }
    // A deleted actor is shown as Gitea's Ghost.
    const actor = byId.get(read.data.actorId) ?? { login: 'Ghost', fullName: '' };
    let rendered: RenderedMail;
    let headers: Record<string, string> | undefined;
    if (read.kind === 'issue') {
      rendered = renderIssueMail(site, read.data, actor, read.reason);
      const reference = issueReference(read.data.repoFullName, read.data.isPull, read.data.issueIndex, site.rootUrl);
      headers = { 'In-Reply-To': reference, References: reference };
    } else {
      const owner = byId.get(read.data.recipientOwnerId);
      const organization = owner !== undefined && owner.type === 1 ? owner : undefined;
      rendered = renderTransferMail(site, read.data, actor, organization ?? (read.data.recipientOwnerId !== job.recipientId ? { login: read.data.recipientOwnerName, fullName: '' } : undefined));
    }
    try {
      await transport.send({ messageId: messageIdOf(job.jobKey, site.rootUrl), from: settings.from, to: recipient.email, ...rendered, headers });
    } catch (error) {
      return failed(job, error);
    }
    return { kind: 'sent' };
  };

  const run = async (job: ClaimedMailJob): Promise<void> => {
    const outcome = await attempt(job);
    const recorded = await recordMailOutcome(db.pool, job, outcome);
    const fields = { mail_job: job.jobKey, kind: job.kind, attempt: job.attempts, outcome: outcome.kind, recorded };
    if (outcome.kind === 'givenUp') logger.error({ ...fields, error: outcome.error }, 'mail given up');
    else if (outcome.kind === 'retry') logger.warn({ ...fields, error: outcome.error, retry_in_ms: outcome.retryInMs }, 'mail not sent, will retry');
    else logger.info(fields, outcome.kind === 'sent' ? 'mail sent' : 'mail skipped');
  };

  const loop = startClaimLoop<ClaimedMailJob>({
    claim: (room) => claimDueMailJobs(db.pool, room, leaseMs),
    run,
    concurrency,
    pollIntervalMs,
    onClaimError: (error) => logger.error({ err: error }, 'claiming mail jobs failed'),
    onRunError: (error, job) => logger.error({ err: error, mail_job: job.jobKey }, 'recording a mail attempt failed'),
  });

  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      transport.close();
    },
  };
}
