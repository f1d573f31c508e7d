/**
 * The consumers of issues' events: a deleted issue's reactions (its own and its comments') and a deleted
 * comment's reactions are forgotten, each deletion applied once.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { deleteCommentReactions, deleteIssueReactions } from '../store/reactions';
import { COMMENTS_CONSUMER, ConsumedSubject, ISSUES_CONSUMER, ISSUES_STREAM } from './consumed';

export interface IssueEventsOptions {
  db: Database;
  logger: Logger;
}

export function issueDeletedHandler({ db, logger }: IssueEventsOptions): BusHandler {
  return applyOnce({
    db,
    logger,
    consumer: ISSUES_CONSUMER,
    type: IssueEvent,
    apply: async (tx, event) => {
      const issueId = event.issue?.id ?? 0;
      if (issueId > 0) await deleteIssueReactions(tx, issueId);
    },
  });
}

export function commentDeletedHandler({ db, logger }: IssueEventsOptions): BusHandler {
  return applyOnce({
    db,
    logger,
    consumer: COMMENTS_CONSUMER,
    type: IssueCommentEvent,
    apply: async (tx, event) => {
      const comment = event.comment;
      if (comment !== undefined && comment.issueId > 0 && comment.id > 0) await deleteCommentReactions(tx, comment.issueId, comment.id);
    },
  });
}

/** Both durables, issues' first; none is left running when the second cannot start. */
export async function startIssueEventsConsumers(options: IssueEventsOptions & { bus: Bus }): Promise<Subscription[]> {
  const { bus } = options;
  const issues = await bus.consume({
    stream: ISSUES_STREAM,
    durable: ISSUES_CONSUMER,
    filterSubject: ConsumedSubject.issueDeleted,
    handler: issueDeletedHandler(options),
  });
  try {
    const comments = await bus.consume({
      stream: ISSUES_STREAM,
      durable: COMMENTS_CONSUMER,
      filterSubject: ConsumedSubject.commentDeleted,
      handler: commentDeletedHandler(options),
    });
    return [issues, comments];
  } catch (error) {
    await issues.stop();
    throw error;
  }
}
