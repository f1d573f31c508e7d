/**
 * The `notifications-transfers` consumer of repos' `cairn.repo.transfer_requested` (Gitea's
 * models/activities/notification.go CreateRepoTransferNotification, services/mailer/mail_repo.go
 * SendRepoTransferNotifyMail): a repository-type thread for each user who may accept the transfer (the recipient
 * user, or the recipient organization's members who may create repositories; never the doer), and, while
 * `[mailer] ENABLED`, a transfer mail job for each of them — both in the transaction that records the event id
 * (processOnce), so a redelivered event adds nothing. The mail sender is woken after the commit.
 */
import { type Bus, type BusHandler, type Subscription, processOnce } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { RepoTransferRequested } from '@cairn/proto/cairn/repos/v1/events';
import { type AccountsClients, transferCandidates } from '../accounts/transfer-candidates';
import { transferNotifiees } from '../domain/transfer-recipients';
import { type MailJob, queueMailJobs } from '../mail/jobs';
import { SubjectType, touchThreads } from '../store/threads';
import { readEvent } from './read-event';
import { REPOS_STREAM, ReposSubject, TRANSFERS_CONSUMER } from './repos-stream';

export interface TransferConsumerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  accounts: AccountsClients;
  /** `[mailer] ENABLED`: mail jobs are queued only then (Gitea queues no mail while the mailer is off). */
  mailEnabled: boolean;
  /** Called after a commit that queued mail (the sender's wake). */
  onMailQueued?: () => void;
  stream?: string;
  durable?: string;
  filterSubject?: string;
}

export function startTransferConsumer(options: TransferConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? TRANSFERS_CONSUMER;
  return options.bus.consume({
    stream: options.stream ?? REPOS_STREAM,
    durable,
    filterSubject: options.filterSubject ?? ReposSubject.repoTransferRequested,
    handler: transferRequestedHandler({ ...options, durable }),
  });
}

/**
 * Handles one `cairn.repo.transfer_requested` message. An unreadable one is logged and acknowledged; a failing
 * accounts lookup or database write throws, so the bus redelivers it.
 */
export function transferRequestedHandler(options: TransferConsumerOptions & { durable: string }): BusHandler {
  const { db, logger, accounts } = options;
  return async (message) => {
    const read = readEvent(RepoTransferRequested, message);
    if ('problem' in read) {
      logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable transfer event');
      return;
    }
    const { event, eventId } = read;
    const repo = event.repository;
    if (repo === undefined || repo.id <= 0 || event.recipientId <= 0) return;
    // Looked up before the transaction: a lookup that fails leaves nothing half done, and the event comes again.
    const { recipient, userIds } = await transferCandidates(accounts, event.recipientId);
    if (recipient === undefined) return;
    const notified = transferNotifiees(userIds, event.doerId);
    const repoFullName = `${repo.ownerName}/${repo.name}`;
    const jobs: MailJob[] = options.mailEnabled
      ? notified.map((userId) => ({
          kind: 'transfer',
          eventId,
          recipientId: userId,
          reason: 'transfer',
          data: { actorId: event.doerId, repoId: repo.id, repoFullName, recipientOwnerId: recipient.id, recipientOwnerName: recipient.login },
        }))
      : [];
    let queued = 0;
    await processOnce(db, options.durable, eventId, async (tx) => {
      await touchThreads(
        tx,
        notified.map((userId) => ({
          userId,
          repoId: repo.id,
          subjectType: SubjectType.repository,
          issueId: 0,
          issueIndex: 0,
          commitId: '',
          commentId: 0,
          updatedBy: event.doerId,
        })),
      );
      queued = await queueMailJobs(tx, jobs);
    });
    if (queued > 0) options.onMailQueued?.();
  };
}
