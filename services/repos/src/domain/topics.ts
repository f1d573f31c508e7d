/**
 * Repository topics as Gitea has them (models/repo/topic.go, routers/api/v1/repo/topic.go): names are trimmed
 * and lower-cased, must match `^[a-z0-9][-.a-z0-9]*$` within 35 characters, and a repository has at most 25.
 */
import { CairnError } from '@cairn/rpc';

export const MAX_TOPICS_PER_REPO = 25;
const MAX_TOPIC_LENGTH = 35;
const TOPIC_PATTERN = /^[a-z0-9][-.a-z0-9]*$/;

/** Gitea's `strings.TrimSpace(strings.ToLower(topic))`. */
export function normalizeTopic(raw: string): string {
  return raw.toLowerCase().trim();
}

/** Gitea's `ValidateTopic` (length in bytes, as Go's `len`). */
export function isValidTopic(topic: string): boolean {
  return Buffer.byteLength(topic) <= MAX_TOPIC_LENGTH && TOPIC_PATTERN.test(topic);
}

/**
 * The topics a replacement sets, in the order given (Gitea's `SanitizeAndValidateTopics`: empty names and
 * repeats dropped). Too many valid topics is reported before invalid ones, as Gitea checks in that order.
 */
export function topicsForReplacement(raw: readonly string[]): string[] {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const topic of raw.map(normalizeTopic)) {
    if (topic === '' || valid.includes(topic)) continue;
    (isValidTopic(topic) ? valid : invalid).push(topic);
  }
  if (valid.length > MAX_TOPICS_PER_REPO) {
    throw CairnError.invalid('Exceeding maximum number of topics per repo', { reason: 'topics_too_many' });
  }
  // The names travel as a JSON array after `: ` so names holding commas or spaces survive the trip.
  if (invalid.length > 0) throw CairnError.invalid(`Topic names are invalid: ${JSON.stringify(invalid)}`, { reason: 'topics_invalid' });
  return valid;
}

/** One topic named in a path (add or delete), normalized; INVALID_ARGUMENT reason topic_invalid when unusable. */
export function singleTopic(raw: string): string {
  const topic = normalizeTopic(raw);
  if (!isValidTopic(topic)) throw CairnError.invalid('Topic name is invalid', { reason: 'topic_invalid' });
  return topic;
}

/** Adding a topic to a repository that has `count` already (Gitea checks before looking whether it is new). */
export function assertRoomForTopic(count: number): void {
  if (count >= MAX_TOPICS_PER_REPO) {
    throw CairnError.invalid('Exceeding maximum allowed topics per repo.', { reason: 'topics_too_many' });
  }
}
