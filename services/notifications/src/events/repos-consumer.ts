/**
 * The `notifications-repos` consumer: a deleted repository's activity is forgotten from every heatmap, site
 * admins' included (Gitea deletes a repository's actions with it), and its notification threads go, exactly once
 * per event — the event id is recorded in the transaction of the deletion (`processOnce`) and the message
 * acknowledged after that commit.
 */
import { type Bus, type BusHandler, type Subscription, processOnce } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { forgetRepoActivity } from '../store/activity-buckets';
import { deleteRepoThreads } from '../store/thread-removals';
import { readEvent } from './read-event';
import { REPOS_CONSUMER, REPOS_STREAM, ReposSubject } from './repos-stream';

export interface ReposConsumerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** Stream, durable name and subject; tests give their own, production uses the defaults. */
  stream?: string;
  durable?: string;
  filterSubject?: string;
}

export function startReposConsumer(options: ReposConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? REPOS_CONSUMER;
  return options.bus.consume({
    stream: options.stream ?? REPOS_STREAM,
    durable,
    filterSubject: options.filterSubject ?? ReposSubject.repoDeleted,
    handler: repoDeletedHandler(options.db, options.logger, durable),
  });
}

/**
 * Handles one `cairn.repo.deleted` message. A message that can never be applied (not a RepoDeleted) is logged
 * and acknowledged: redelivering it would change nothing. A database failure throws, so the bus redelivers it.
 */
export function repoDeletedHandler(db: Database, logger: Logger, consumer: string = REPOS_CONSUMER): BusHandler {
  return async (message) => {
    const read = readEvent(RepoDeleted, message);
    if ('problem' in read) {
      logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable repository event');
      return;
    }
    const { event, eventId } = read;
    if (event.repoId <= 0) return;
    await processOnce(db, consumer, eventId, async (tx) => {
      await forgetRepoActivity(tx, event.repoId);
      // Its notification threads go with it (Gitea's DeleteRepository deletes the repository's notifications).
      await deleteRepoThreads(tx, event.repoId);
    });
  };
}
