/**
 * The events of other services that social consumes, and its durable consumers (`<consumer-service>-<purpose>`).
 * Their producers own the streams and the subject lists: social only binds to them.
 */

/** repos' stream (proto/cairn/repos/v1/events.proto). */
export const REPOS_STREAM = 'CAIRN_REPOS';
/** accounts' stream (proto/cairn/accounts/v1/events.proto). */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
/** issues' stream (proto/cairn/issues/v1/events.proto). */
export const ISSUES_STREAM = 'CAIRN_ISSUES';

export const ConsumedSubject = {
  /** Every repository event: one consumer sees a repository's creation before its deletion. */
  repoEvents: 'cairn.repo.>',
  repoCreated: 'cairn.repo.created',
  repoForked: 'cairn.repo.forked',
  repoDeleted: 'cairn.repo.deleted',
  /** Every user event: one consumer sees a user's renames before their deletion. */
  userEvents: 'cairn.user.>',
  userRenamed: 'cairn.user.renamed',
  userDeleted: 'cairn.user.deleted',
  issueDeleted: 'cairn.issue.deleted',
  commentDeleted: 'cairn.issue_comment.deleted',
} as const;

/** Watches new repositories for their creators and forgets deleted repositories' stars, watches and reactions. */
export const REPOS_CONSUMER = 'social-repos';
/** Forgets the stars, watches and reactions of deleted users and keeps reactions' user names current. */
export const USERS_CONSUMER = 'social-users';
/**
 * Forgets the reactions of deleted issues, and (second durable) of deleted comments: JetStream 2.9 takes one filter
 * subject per consumer and refuses one spanning `cairn.issue.>` and `cairn.issue_comment.>`; the two deletions
 * need no common order (an issue's deletion takes its comments' reactions along).
 */
export const ISSUES_CONSUMER = 'social-issues';
export const COMMENTS_CONSUMER = 'social-issue-comments';
