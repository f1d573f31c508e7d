/**
 * The `notifications-activity` consumer: every accepted push adds the pusher's contributions to their
 * heatmap bucket (domain/push-contributions.ts), exactly once per event — the event id is recorded in the
 * transaction of the addition (`processOnce`), and the message is acknowledged only after that commit, so a
 * redelivered or republished event adds nothing. A push to a repository deleted meanwhile adds nothing either
 * (the `notifications-repos` consumer forgot it; store/activity-buckets.ts).
 */
import { type Bus, type BusHandler, type BusMessage, type Subscription, processOnce } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { bucketOf } from '../domain/heatmap-buckets';
import { pushContributions } from '../domain/push-contributions';
import { addContributions } from '../store/activity-buckets';
import { ACTIVITY_CONSUMER, GIT_STREAM, GitSubject } from './git-stream';
import { readEvent } from './read-event';

export interface ActivityConsumerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** Stream, durable name and subject; tests give their own, production uses the defaults. */
  stream?: string;
  durable?: string;
  filterSubject?: string;
}

export function startActivityConsumer(options: ActivityConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? ACTIVITY_CONSUMER;
  return options.bus.consume({
    stream: options.stream ?? GIT_STREAM,
    durable,
    filterSubject: options.filterSubject ?? GitSubject.pushed,
    handler: gitPushedHandler(options.db, options.logger, durable),
  });
}

/** A GitPushed with what counting needs, or why the message can never be counted. */
function readGitPushed(message: BusMessage): { event: GitPushed; eventId: string; at: Date } | { problem: string } {
  const read = readEvent(GitPushed, message);
  if ('problem' in read) return read;
  const at = read.event.pushedAt ?? read.event.meta?.occurredAt;
  if (at === undefined || Number.isNaN(at.getTime())) return { problem: 'neither pushedAt nor meta.occurredAt is set' };
  return { ...read, at };
}

/**
 * Handles one `cairn.git.pushed` message. A message that can never be counted (not a GitPushed) is logged and
 * acknowledged: redelivering it would change nothing. A database failure throws, so the bus redelivers it.
 */
export function gitPushedHandler(db: Database, logger: Logger, consumer: string = ACTIVITY_CONSUMER): BusHandler {
  return async (message) => {
    const read = readGitPushed(message);
    if ('problem' in read) {
      logger.error({ subject: message.subject, event_id: message.id, problem: read.problem }, 'dropping an unreadable git event');
      return;
    }
    const { event, eventId, at } = read;
    const count = pushContributions(event.refUpdates);
    // An import's git data is no one's contribution (Gitea records no push action for a migration); a mirror's sync is
    // its pusher's, the repository's owner (Gitea's SyncPushCommits action).
    if (count === 0 || event.pusherId <= 0 || event.repoId <= 0 || event.origin === 'migration') return;
    await processOnce(db, consumer, eventId, (tx) =>
      addContributions(tx, { userId: event.pusherId, repoId: event.repoId, bucket: bucketOf(at), count }),
    );
  };
}
