/**
 * The git events this service consumes (payloads in proto/cairn/git/v1/events.proto). git-storage owns the
 * stream; the consumer creates it too (same name and subjects, which is idempotent) so it can bind before the
 * producer first runs.
 */
export const GIT_STREAM = 'CAIRN_GIT';
export const GIT_SUBJECTS: readonly string[] = ['cairn.git.>'];

export const GitSubject = {
  pushed: 'cairn.git.pushed',
} as const;

/** The durable consumer that feeds the activity store (`<consumer-service>-<purpose>`). */
export const ACTIVITY_CONSUMER = 'notifications-activity';
