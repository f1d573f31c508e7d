/**
 * The repository events this service consumes (payloads in proto/cairn/repos/v1/events.proto). repos owns the
 * stream; the consumer creates it too (same name and subjects as services/repos/src/events/subjects.ts, which is
 * idempotent) so it can bind before the producer first runs.
 */
export const REPOS_STREAM = 'CAIRN_REPOS';
export const REPOS_SUBJECTS: readonly string[] = ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>'];

export const ReposSubject = {
  repoDeleted: 'cairn.repo.deleted',
} as const;

/** The durable consumer that forgets deleted repositories' activity (`<consumer-service>-<purpose>`). */
export const REPOS_CONSUMER = 'notifications-repos';
