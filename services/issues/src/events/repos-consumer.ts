/**
 * The `issues-repos` consumer: a deleted repository's issues (with their comments, labels on them, assignees,
 * times, stopwatches and subscriptions), labels and milestones go, and its counters and numbering with them.
 * Issues go in batches, each its own transaction, so that a repository with a million issues holds no huge
 * transaction; the rest goes in the transaction that records the event as applied (a redelivered event changes
 * nothing more).
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { deleteRepoIssueBatch, deleteRepoRest } from '../store/removals';
import { readEvent } from './read-event';
import { ConsumedSubject, REPOS_CONSUMER, REPOS_STREAM } from './subjects';

/** Issues deleted per transaction. */
export const REPO_ISSUE_BATCH = 1000;

export interface RepoEventsOptions {
  db: Database;
  logger: Logger;
}

async function deleteRepoIssues(db: Database, repoId: number): Promise<void> {
  for (;;) {
    const deleted = await db.pool.transaction((tx) => deleteRepoIssueBatch(tx, repoId, REPO_ISSUE_BATCH));
    if (deleted < REPO_ISSUE_BATCH) return;
  }
}

export function repoDeletedHandler({ db, logger }: RepoEventsOptions): BusHandler {
  const finish = applyOnce({
    db,
    logger,
    consumer: REPOS_CONSUMER,
    type: RepoDeleted,
    apply: async (tx, event) => {
      if (event.repoId > 0) await deleteRepoRest(tx, event.repoId);
    },
  });
  return async (message) => {
    // The issues go first, batch by batch, each batch its own transaction (none held open while another waits
    // for a connection). Repository ids are never reused, so a redelivered event finds nothing more here.
    const repoId = readEvent(RepoDeleted, message)?.repoId ?? 0;
    if (repoId > 0) await deleteRepoIssues(db, repoId);
    await finish(message);
  };
}

export function startRepoEventsConsumer(options: RepoEventsOptions & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: REPOS_STREAM,
    durable: REPOS_CONSUMER,
    filterSubject: ConsumedSubject.repoDeleted,
    handler: repoDeletedHandler(options),
  });
}
