/**
 * The issues service's stream (payloads in proto/cairn/issues/v1/events.proto) and accounts' (user deletions), as
 * their producers define them; notifications only binds. nats-server 2.9 takes one filter subject per consumer, so
 * the issues consumer takes the whole stream (`cairn.>`) and skips the subjects that notify nobody.
 */
export const ISSUES_STREAM = 'CAIRN_ISSUES';
/** Issues, comments, pull requests and reviews → threads and mail (`<consumer-service>-<purpose>`). */
export const ISSUES_CONSUMER = 'notifications-issues';
export const ISSUES_FILTER = 'cairn.>';

export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
/** Deleted users → their threads go. */
export const ACCOUNTS_CONSUMER = 'notifications-accounts';
export const AccountsSubject = { userDeleted: 'cairn.user.deleted' } as const;
