/**
 * The `issues-orgs` consumer takes a deleted organization's labels away. The `issues-accounts` consumer: a deleted user's stopwatches, subscriptions, assignments and mentions go, as
 * Gitea's deleteUser (services/user/delete.go) removes them; their issues stay (poster shown as the Ghost user).
 * Their plain comments go too when the deletion was a purge or `[service] USER_DELETE_WITH_COMMENTS_MAX_TIME` is
 * set and the account was younger than that when it was deleted; each goes as a comment deletion does (its issue
 * counted down and updated, cairn.issue_comment.deleted published so that its reactions go), in batches.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { OrgDeleted, UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { deletePosterComments, toComment, touchIssues } from '../store/comments';
import { toIssues } from '../store/issues';
import { deleteOrgLabels, deleteUserIssueLinks } from '../store/removals';
import { enqueueCommentEvent } from './comment-events';
import { readEvent } from './read-event';
import { ACCOUNTS_CONSUMER, ACCOUNTS_STREAM, ConsumedSubject, ORGS_CONSUMER } from './subjects';

/** Comments deleted per transaction (Gitea deletes 50 at a time). */
export const USER_COMMENT_BATCH = 500;

export interface AccountEventsOptions {
  db: Database;
  logger: Logger;
  /** `[service] USER_DELETE_WITH_COMMENTS_MAX_TIME` in milliseconds; 0 (the default) keeps comments. */
  userDeleteWithCommentsMaxTime: number;
}

/**
 * Gitea's rule: `purge || (MaxTime != 0 && created + MaxTime is after the deletion)`. The deletion's time is the
 * event's, so that a redelivery decides the same. An event without the creation time (published before accounts
 * sent it) keeps the comments unless it is a purge.
 */
export function deletesComments(event: UserDeleted, maxTimeMs: number): boolean {
  if (event.purge) return true;
  if (maxTimeMs === 0 || event.userCreated === undefined) return false;
  const deletedAt = event.meta?.occurredAt?.getTime() ?? Date.now();
  return event.userCreated.getTime() + maxTimeMs > deletedAt;
}

/**
 * One batch of the user's plain comments, with their events; answers how many went. The repository's privacy is
 * not known here: events say private, which makes consumers check before they show anything.
 */
async function deleteCommentBatch(db: Database, userId: number, actorId: number): Promise<number> {
  return db.pool.transaction(async (tx) => {
    const rows = await deletePosterComments(tx, userId, USER_COMMENT_BATCH);
    if (rows.length === 0) return 0;
    const issues = new Map((await toIssues(tx, await touchIssues(tx, rows.map((row) => row.issue_id)))).map((issue) => [issue.id, issue]));
    for (const row of rows) {
      const issue = issues.get(row.issue_id);
      if (issue === undefined) throw new Error(`issue ${row.issue_id} of comment ${row.id} vanished inside its own transaction`);
      await enqueueCommentEvent(tx, 'deleted', { actorId, issue, comment: toComment(row), repoPrivate: true });
    }
    return rows.length;
  });
}

export function userDeletedHandler({ db, logger, userDeleteWithCommentsMaxTime }: AccountEventsOptions): BusHandler {
  const finish = applyOnce({
    db,
    logger,
    consumer: ACCOUNTS_CONSUMER,
    type: UserDeleted,
    apply: async (tx, event) => {
      if (event.userId > 0) await deleteUserIssueLinks(tx, event.userId);
    },
  });
  return async (message) => {
    const event = readEvent(UserDeleted, message);
    if (event !== undefined && event.userId > 0 && deletesComments(event, userDeleteWithCommentsMaxTime)) {
      // Batch by batch, each batch its own transaction with its events. User ids are never reused and a deleted
      // user writes nothing more, so a redelivered event finds no comment left to take.
      for (let deleted = USER_COMMENT_BATCH; deleted === USER_COMMENT_BATCH; ) {
        deleted = await deleteCommentBatch(db, event.userId, event.meta?.actorId ?? 0);
      }
    }
    await finish(message);
  };
}

export function startAccountEventsConsumer(options: AccountEventsOptions & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: ACCOUNTS_STREAM,
    durable: ACCOUNTS_CONSUMER,
    filterSubject: ConsumedSubject.userDeleted,
    handler: userDeletedHandler(options),
  });
}

export function orgDeletedHandler({ db, logger }: Pick<AccountEventsOptions, 'db' | 'logger'>): BusHandler {
  return applyOnce({
    db,
    logger,
    consumer: ORGS_CONSUMER,
    type: OrgDeleted,
    apply: async (tx, event) => {
      if (event.orgId > 0) await deleteOrgLabels(tx, event.orgId);
    },
  });
}

export function startOrgEventsConsumer(options: Pick<AccountEventsOptions, 'db' | 'logger'> & { bus: Bus }): Promise<Subscription> {
  return options.bus.consume({
    stream: ACCOUNTS_STREAM,
    durable: ORGS_CONSUMER,
    filterSubject: ConsumedSubject.orgDeleted,
    handler: orgDeletedHandler(options),
  });
}
