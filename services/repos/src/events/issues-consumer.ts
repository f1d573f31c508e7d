/**
 * The consumers of issues' deletions: a deleted issue's attachments (its comments' included) and a deleted
 * comment's go with it, as Gitea's issue and comment deletions delete theirs; the bytes are removed once the
 * deletion committed. Each deletion is applied once; applying it again would delete nothing anyway.
 */
import { applyOnce, type Bus, type BusHandler, type Subscription } from '@cairn/bus';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { purgeAttachmentsNow } from '../maintenance/purge-attachments';
import type { ReposContext } from '../rpc/context';
import { deleteCommentAttachments, deleteIssueAttachments } from '../store/attachments';
import { COMMENT_ATTACHMENTS_CONSUMER, ISSUE_ATTACHMENTS_CONSUMER, ISSUES_STREAM, IssuesSubject } from './subjects';

/** Runs `handler`, then removes what its committed deletion left to the purger. */
function thenPurge(context: ReposContext, handler: BusHandler): BusHandler {
  return async (message) => {
    await handler(message);
    await purgeAttachmentsNow(context);
  };
}

export function issueDeletedHandler(context: ReposContext): BusHandler {
  return thenPurge(
    context,
    applyOnce({
      db: context.db,
      logger: context.logger,
      consumer: ISSUE_ATTACHMENTS_CONSUMER,
      type: IssueEvent,
      apply: async (tx, event) => {
        const issue = event.issue;
        if (issue !== undefined && issue.id > 0) await deleteIssueAttachments(tx, issue.repoId, issue.id);
      },
    }),
  );
}

export function commentDeletedHandler(context: ReposContext): BusHandler {
  return thenPurge(
    context,
    applyOnce({
      db: context.db,
      logger: context.logger,
      consumer: COMMENT_ATTACHMENTS_CONSUMER,
      type: IssueCommentEvent,
      apply: async (tx, event) => {
        const comment = event.comment;
        if (comment !== undefined && comment.issueId > 0 && comment.id > 0) await deleteCommentAttachments(tx, comment.issueId, comment.id);
      },
    }),
  );
}

/** Both durables, issues' first; none is left running when the second cannot start. */
export async function startIssuesConsumers(context: ReposContext, options: { bus: Bus }): Promise<Subscription[]> {
  const { bus } = options;
  const issues = await bus.consume({ stream: ISSUES_STREAM, durable: ISSUE_ATTACHMENTS_CONSUMER, filterSubject: IssuesSubject.issueDeleted, handler: issueDeletedHandler(context) });
  try {
    const comments = await bus.consume({
      stream: ISSUES_STREAM,
      durable: COMMENT_ATTACHMENTS_CONSUMER,
      filterSubject: IssuesSubject.commentDeleted,
      handler: commentDeletedHandler(context),
    });
    return [issues, comments];
  } catch (error) {
    await issues.stop();
    throw error;
  }
}
