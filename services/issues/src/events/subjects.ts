/**
 * The events issues publishes (a public interface: payloads in proto/cairn/issues/v1/events.proto) and the streams
 * it consumes.
 */
export const ISSUES_STREAM = 'CAIRN_ISSUES';
export const ISSUES_SUBJECTS: readonly string[] = [
  'cairn.issue.>',
  'cairn.issue_comment.>',
  'cairn.label.>',
  'cairn.milestone.>',
  'cairn.pull_request.>',
  'cairn.pull_review.>',
];

export const Subject = {
  issueOpened: 'cairn.issue.opened',
  issueEdited: 'cairn.issue.edited',
  issueClosed: 'cairn.issue.closed',
  issueReopened: 'cairn.issue.reopened',
  issueDeleted: 'cairn.issue.deleted',
  issueAssigned: 'cairn.issue.assigned',
  issueMilestoned: 'cairn.issue.milestoned',
  issueLabeled: 'cairn.issue.labeled',
  issueLocked: 'cairn.issue.locked',
  issueUnlocked: 'cairn.issue.unlocked',
  issueSubscribed: 'cairn.issue.subscribed',
  issueUnsubscribed: 'cairn.issue.unsubscribed',
  issueTimeAdded: 'cairn.issue.time_added',
  issueTimeDeleted: 'cairn.issue.time_deleted',
  issueStopwatchStarted: 'cairn.issue.stopwatch_started',
  issueStopwatchStopped: 'cairn.issue.stopwatch_stopped',
  issueStopwatchCancelled: 'cairn.issue.stopwatch_cancelled',
  commentCreated: 'cairn.issue_comment.created',
  commentEdited: 'cairn.issue_comment.edited',
  commentDeleted: 'cairn.issue_comment.deleted',
  labelCreated: 'cairn.label.created',
  labelUpdated: 'cairn.label.updated',
  labelDeleted: 'cairn.label.deleted',
  milestoneCreated: 'cairn.milestone.created',
  milestoneUpdated: 'cairn.milestone.updated',
  milestoneClosed: 'cairn.milestone.closed',
  milestoneReopened: 'cairn.milestone.reopened',
  milestoneDeleted: 'cairn.milestone.deleted',
  pullOpened: 'cairn.pull_request.opened',
  pullEdited: 'cairn.pull_request.edited',
  pullClosed: 'cairn.pull_request.closed',
  pullReopened: 'cairn.pull_request.reopened',
  pullSynchronized: 'cairn.pull_request.synchronized',
  pullMerged: 'cairn.pull_request.merged',
  pullMergeabilityChanged: 'cairn.pull_request.mergeability_changed',
  pullReviewRequested: 'cairn.pull_request.review_requested',
  pullReviewRequestRemoved: 'cairn.pull_request.review_request_removed',
  reviewSubmitted: 'cairn.pull_review.submitted',
  reviewDismissed: 'cairn.pull_review.dismissed',
  reviewUndismissed: 'cairn.pull_review.undismissed',
  reviewDeleted: 'cairn.pull_review.deleted',
} as const;

/**
 * repos' stream (repos defines it; issues binds): a deleted repository takes its issues along; a successful commit
 * status tries scheduled merges.
 */
export const REPOS_STREAM = 'CAIRN_REPOS';
export const REPOS_CONSUMER = 'issues-repos';
/** Other services' events issues consumes (proto/cairn/repos/v1/events.proto, proto/cairn/accounts/v1/events.proto). */
export const ConsumedSubject = {
  repoDeleted: 'cairn.repo.deleted',
  /** A CI status on a commit: scheduled merges of pull requests with that head are tried (events/auto-merge-consumer.ts). */
  commitStatusCreated: 'cairn.commit_status.created',
  userDeleted: 'cairn.user.deleted',
  orgDeleted: 'cairn.org.deleted',
} as const;

/**
 * accounts' stream (accounts defines it; issues binds): a deleted user's comments
 * (`[service] USER_DELETE_WITH_COMMENTS_MAX_TIME`), stopwatches, subscriptions.
 */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
export const ACCOUNTS_CONSUMER = 'issues-accounts';
/** A second durable on accounts' stream (nats-server 2.9 takes one filter subject per consumer): deleted organizations. */
export const ORGS_CONSUMER = 'issues-orgs';
