/**
 * Removing attachments' bytes only after the transaction that deleted their rows has committed (store/attachment-
 * purges.ts): right after a deletion through the API (`purgeAttachmentsNow`), and by this purger for whatever is
 * left (a crash between commit and removal, the object store away, repositories deleted by the accounts consumer).
 * Object stores delete idempotently, so a removal repeated after a crash is harmless. Follows
 * maintenance/purge-repositories.ts.
 */
import { attachmentKey } from '@cairn/storage';
import type { ReposContext } from '../rpc/context';
import { finishAttachmentPurge, lockAttachmentPurge, postponeAttachmentPurge } from '../store/attachment-purges';
import { type PeriodicSweep, startPeriodicSweep } from './periodic';

/** Longest wait between two tries of a failing removal. */
const MAX_RETRY_DELAY_MS = 10 * 60_000;
/** How often the purger looks for due removals; start-up looks at once. */
const DEFAULT_POLL_MS = 30_000;

type Outcome = 'purged' | 'failed' | 'none';

/** Removes the bytes due longest and forgets the removal (or puts it off when the store fails). */
async function purgeOne(context: ReposContext): Promise<Outcome> {
  return context.db.pool.transaction(async (tx): Promise<Outcome> => {
    const uuid = await lockAttachmentPurge(tx);
    if (uuid === undefined) return 'none';
    try {
      await context.objects.delete(attachmentKey(uuid));
    } catch (error) {
      const attempts = await postponeAttachmentPurge(tx, uuid, MAX_RETRY_DELAY_MS);
      context.logger.warn({ err: error, attachment_uuid: uuid, attempts }, 'could not remove an attachment’s bytes; retrying later');
      return 'failed';
    }
    await finishAttachmentPurge(tx, uuid);
    return 'purged';
  });
}

/** Every removal that is due, one at a time; a failing one is put off and the others go on. */
export async function purgeDueAttachments(context: ReposContext): Promise<{ purged: number; failed: number }> {
  const done = { purged: 0, failed: 0 };
  for (;;) {
    const outcome = await purgeOne(context);
    if (outcome === 'none') return done;
    done[outcome] += 1;
  }
}

/**
 * Removes what is due now, after a deleting transaction committed. Never fails: what is not removed now stays
 * recorded for the purger.
 */
export async function purgeAttachmentsNow(context: ReposContext): Promise<void> {
  try {
    await purgeDueAttachments(context);
  } catch (error) {
    context.logger.warn({ err: error }, 'could not remove attachments’ bytes now; the purger retries');
  }
}

export type AttachmentPurger = PeriodicSweep;

/** Purges what is due at start-up (what a crash left) and then every `pollMs`. */
export function startAttachmentPurger(context: ReposContext, options: { pollMs?: number } = {}): AttachmentPurger {
  return startPeriodicSweep(async () => {
    try {
      const done = await purgeDueAttachments(context);
      if (done.purged + done.failed > 0) context.logger.info({ task: 'purge_attachments', ...done }, 'removed deleted attachments’ bytes');
    } catch (error) {
      // The database is away: the rows wait for the next round.
      context.logger.warn({ err: error, task: 'purge_attachments' }, 'could not look for attachment bytes to remove');
    }
  }, options.pollMs ?? DEFAULT_POLL_MS);
}
