/**
 * Pull-request events (PullRequestEvent on cairn.pull_request.*, PullReviewEvent on cairn.pull_review.*), written
 * in the transaction of the change with the pull request as it is after it and the repository's privacy, so that
 * notifications and webhooks neither ask back nor leak a private repository's pull request.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { PullRequest, Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

export type PullChange =
  | 'opened'
  | 'edited'
  | 'closed'
  | 'reopened'
  | 'synchronized'
  | 'merged'
  | 'mergeability_changed'
  | 'review_requested'
  | 'review_request_removed';

const PULL_SUBJECTS: Readonly<Record<PullChange, string>> = {
  opened: Subject.pullOpened,
  edited: Subject.pullEdited,
  closed: Subject.pullClosed,
  reopened: Subject.pullReopened,
  synchronized: Subject.pullSynchronized,
  merged: Subject.pullMerged,
  mergeability_changed: Subject.pullMergeabilityChanged,
  review_requested: Subject.pullReviewRequested,
  review_request_removed: Subject.pullReviewRequestRemoved,
};

export interface PullEventFacts {
  actorId: number;
  pull: PullRequest;
  repoPrivate: boolean;
  /** Field names that changed (e.g. "base", "allow_maintainer_edit", "status"). */
  changed?: readonly string[];
  /** On .merged: the style. */
  mergeStyle?: string;
  /** On .review_requested / .review_request_removed: the users it is about. */
  reviewerIds?: readonly number[];
  /** On .review_requested / .review_request_removed: the teams it is about (their members are told, not the team). */
  reviewerTeamIds?: readonly number[];
}

export function enqueuePullEvent(tx: DatabaseTransactionConnection, change: PullChange, facts: PullEventFacts): Promise<string> {
  return enqueue(tx, PULL_SUBJECTS[change], PullRequestEvent, { actorId: facts.actorId, repoId: facts.pull.issue?.repoId ?? 0 }, (meta) =>
    PullRequestEvent.fromPartial({
      meta,
      pull: facts.pull,
      repoPrivate: facts.repoPrivate,
      changed: [...(facts.changed ?? [])],
      mergeStyle: facts.mergeStyle ?? '',
      reviewerIds: [...(facts.reviewerIds ?? [])],
      reviewerTeamIds: [...(facts.reviewerTeamIds ?? [])],
    }),
  );
}

export type ReviewChange = 'submitted' | 'dismissed' | 'undismissed' | 'deleted';

const REVIEW_SUBJECTS: Readonly<Record<ReviewChange, string>> = {
  submitted: Subject.reviewSubmitted,
  dismissed: Subject.reviewDismissed,
  undismissed: Subject.reviewUndismissed,
  deleted: Subject.reviewDeleted,
};

export interface ReviewEventFacts {
  actorId: number;
  pull: PullRequest;
  review: Review;
  repoPrivate: boolean;
  mentionedUserIds?: readonly number[];
}

export function enqueueReviewEvent(tx: DatabaseTransactionConnection, change: ReviewChange, facts: ReviewEventFacts): Promise<string> {
  return enqueue(tx, REVIEW_SUBJECTS[change], PullReviewEvent, { actorId: facts.actorId, repoId: facts.pull.issue?.repoId ?? 0 }, (meta) =>
    PullReviewEvent.fromPartial({
      meta,
      pull: facts.pull,
      review: facts.review,
      repoPrivate: facts.repoPrivate,
      mentionedUserIds: [...(facts.mentionedUserIds ?? [])],
    }),
  );
}
