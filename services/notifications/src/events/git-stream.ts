/**
 * The git events this service consumes (payloads in proto/cairn/git/v1/events.proto). git-storage owns and defines
 * the stream; the consumer only binds to it (waiting for it if git-storage has not run yet).
 */
export const GIT_STREAM = 'CAIRN_GIT';

export const GitSubject = {
  pushed: 'cairn.git.pushed',
} as const;

/** The durable consumer that feeds the activity store (`<consumer-service>-<purpose>`). */
export const ACTIVITY_CONSUMER = 'notifications-activity';
