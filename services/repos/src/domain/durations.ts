/** Go durations as Gitea reads and prints them (`time.ParseDuration`, `Duration.String`), and the mirror interval rule. */
import { formatGoDuration, parseDuration } from '@cairn/config';
import { CairnError } from '@cairn/rpc';

export { formatGoDuration };

/**
 * A mirror's sync interval (Gitea's `updateMirror`): a Go duration, 0 (no periodic sync) or at least `minMs`.
 * Answers it in Go's canonical form; INVALID_ARGUMENT (reason mirror_interval_invalid) otherwise, with Gitea's message.
 */
export function mirrorInterval(text: string, minMs: number): string {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw CairnError.invalid(`time: invalid duration "${text}"`, { reason: 'mirror_interval_invalid' });
  }
  if (ms !== 0 && ms < minMs) {
    throw CairnError.invalid(`invalid mirror interval: ${formatGoDuration(ms)} is below minimum interval: ${formatGoDuration(minMs)}`, {
      reason: 'mirror_interval_invalid',
    });
  }
  return formatGoDuration(ms);
}
