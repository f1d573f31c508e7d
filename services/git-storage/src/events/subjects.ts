/**
 * The events git-storage publishes: its JetStream stream and subjects (a public interface; payloads in
 * proto/cairn/git/v1/events.proto). Consumers may create the same stream themselves to bind before it first runs.
 */
export const GIT_STREAM = 'CAIRN_GIT';
export const GIT_SUBJECTS: readonly string[] = ['cairn.git.>'];

export const GitSubject = {
  pushed: 'cairn.git.pushed',
} as const;
