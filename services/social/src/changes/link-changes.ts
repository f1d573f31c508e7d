/**
 * What starring and watching share, whoever asks (an RPC, an event): a new or removed link moves its
 * repository's counter by one and writes its event to the outbox in the same transaction; nothing moves and
 * nothing is published when nothing changed.
 */
import type { Database, DatabaseTransactionConnection } from '@cairn/db';
import { COUNTER_OF, moveCounter } from '../store/counters';
import { deleteLink, type Link, type LinkTable } from '../store/links';

/** Writes the event of a changed link, given the repository's count after the change. */
export type EnqueueLinkEvent = (tx: DatabaseTransactionConnection, link: Link, count: number) => Promise<string>;

/** Counts and announces a link just inserted into `table`. */
export async function recordAdded(tx: DatabaseTransactionConnection, table: LinkTable, link: Link, enqueue: EnqueueLinkEvent): Promise<void> {
  const count = await moveCounter(tx, link.repoId, COUNTER_OF[table], 1);
  await enqueue(tx, link, count);
}

/** Removes a link if it exists, uncounting and announcing it. */
export async function removeLink(db: Database, table: LinkTable, link: Link, enqueue: EnqueueLinkEvent): Promise<void> {
  await db.pool.transaction(async (tx) => {
    if (!(await deleteLink(tx, table, link))) return;
    const count = await moveCounter(tx, link.repoId, COUNTER_OF[table], -1);
    await enqueue(tx, link, count);
  });
}
