/**
 * The events of other services that social consumes, and its durable consumers (`<consumer-service>-<purpose>`).
 * Their producers own the streams and the subject lists: social only binds to them.
 */

/** repos' stream (proto/cairn/repos/v1/events.proto). */
export const REPOS_STREAM = 'CAIRN_REPOS';
/** accounts' stream (proto/cairn/accounts/v1/events.proto). */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';

export const ConsumedSubject = {
  /** Every repository event: one consumer sees a repository's creation before its deletion. */
  repoEvents: 'cairn.repo.>',
  repoCreated: 'cairn.repo.created',
  repoForked: 'cairn.repo.forked',
  repoDeleted: 'cairn.repo.deleted',
  userDeleted: 'cairn.user.deleted',
} as const;

/** Watches new repositories for their creators and forgets deleted repositories' stars and watches. */
export const REPOS_CONSUMER = 'social-repos';
/** Forgets the stars and watches of deleted users. */
export const USERS_CONSUMER = 'social-users';
