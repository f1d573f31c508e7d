/**
 * The `social-repos` consumer, over every repository event in order: a created or forked repository is watched
 * for the user who made it when `[service] AUTO_WATCH_NEW_REPOS` is on (Gitea's CreateRepositoryByExample; mode
 * `auto`, counted and announced like any watch), and a deleted repository's stars, watches, counters and reactions
 * are forgotten. Other repository events are acknowledged untouched.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database, DatabaseTransactionConnection } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { recordAdded } from '../changes/link-changes';
import { insertWatch } from '../store/links';
import { deleteRepoReactions } from '../store/reactions';
import { deleteRepoLinks } from '../store/removals';
import { ConsumedSubject, REPOS_CONSUMER, REPOS_STREAM } from './consumed';
import { enqueueWatchAdded } from './outbox';

export interface RepoEventsOptions {
  db: Database;
  logger: Logger;
  /** `[service] AUTO_WATCH_NEW_REPOS`. */
  autoWatchNewRepos: boolean;
}

/** The creator's watch of a new repository, unless they already watch it. */
async function watchForCreator(tx: DatabaseTransactionConnection, creatorId: number, repository: Repository | undefined): Promise<void> {
  if (creatorId <= 0 || repository === undefined || repository.id <= 0) return;
  const link = { userId: creatorId, repoId: repository.id };
  if ((await insertWatch(tx, link, 'auto')) !== null) await recordAdded(tx, 'watches', link, enqueueWatchAdded);
}

export function repoEventsHandler({ db, logger, autoWatchNewRepos }: RepoEventsOptions): BusHandler {
  const common = { db, logger, consumer: REPOS_CONSUMER };
  const handlers: Readonly<Record<string, BusHandler>> = {
    [ConsumedSubject.repoCreated]: applyOnce({
      ...common,
      type: RepoCreated,
      apply: (tx, event) => (autoWatchNewRepos ? watchForCreator(tx, event.meta?.actorId ?? 0, event.repository) : Promise.resolve()),
    }),
    [ConsumedSubject.repoForked]: applyOnce({
      ...common,
      type: RepoForked,
      apply: (tx, event) => (autoWatchNewRepos ? watchForCreator(tx, event.meta?.actorId ?? 0, event.repository) : Promise.resolve()),
    }),
    [ConsumedSubject.repoDeleted]: applyOnce({
      ...common,
      type: RepoDeleted,
      apply: async (tx, event) => {
        if (event.repoId <= 0) return;
        await deleteRepoLinks(tx, event.repoId);
        await deleteRepoReactions(tx, event.repoId);
      },
    }),
  };
  return async (message) => {
    await handlers[message.subject]?.(message);
  };
}

export function startRepoEventsConsumer(options: RepoEventsOptions & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: REPOS_STREAM,
    durable: REPOS_CONSUMER,
    filterSubject: ConsumedSubject.repoEvents,
    handler: repoEventsHandler(options),
  });
}
