/**
 * cairn.issue_comment.created / .edited / .deleted (IssueCommentEvent), written in the transaction of the change:
 * the comment as it is after the change (as it was, for a deletion), its issue after the change, and the
 * repository's privacy so that consumers never leak a private repository's comments.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { IssueCommentEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Comment, Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

export type CommentChange = 'created' | 'edited' | 'deleted';

const SUBJECTS: Readonly<Record<CommentChange, string>> = {
  created: Subject.commentCreated,
  edited: Subject.commentEdited,
  deleted: Subject.commentDeleted,
};

export interface CommentEventFacts {
  actorId: number;
  issue: Issue;
  comment: Comment;
  repoPrivate: boolean;
  /** The body before an edit. */
  previousBody?: string;
  /** Users mentioned for the first time by a new comment. */
  mentionedUserIds?: readonly number[];
}

export function enqueueCommentEvent(tx: DatabaseTransactionConnection, change: CommentChange, facts: CommentEventFacts): Promise<string> {
  return enqueue(tx, SUBJECTS[change], IssueCommentEvent, { actorId: facts.actorId, repoId: facts.comment.repoId }, (meta) => ({
    meta,
    issue: facts.issue,
    comment: facts.comment,
    repoPrivate: facts.repoPrivate,
    previousBody: facts.previousBody ?? '',
    mentionedUserIds: [...(facts.mentionedUserIds ?? [])],
  }));
}
