/**
 * The repository events this service consumes (payloads in proto/cairn/repos/v1/events.proto). repos owns and
 * defines the stream; the consumer only binds to it (waiting for it if repos has not run yet).
 */
export const REPOS_STREAM = 'CAIRN_REPOS';

export const ReposSubject = {
  repoDeleted: 'cairn.repo.deleted',
  repoTransferRequested: 'cairn.repo.transfer_requested',
} as const;

/** The durable consumer that forgets deleted repositories' activity (`<consumer-service>-<purpose>`). */
export const REPOS_CONSUMER = 'notifications-repos';

/** The durable consumer that notifies (and mails) whoever may accept a pending transfer. */
export const TRANSFERS_CONSUMER = 'notifications-transfers';
