/**
 * The events git-storage publishes: its JetStream stream and subjects (a public interface; payloads in
 * proto/cairn/git/v1/events.proto). Only git-storage defines the stream; consumers bind to it.
 */
export const GIT_STREAM = 'CAIRN_GIT';
export const GIT_SUBJECTS: readonly string[] = ['cairn.git.>'];

export const GitSubject = {
  pushed: 'cairn.git.pushed',
} as const;
