/** Go durations as Gitea reads and prints them (`time.ParseDuration`, `Duration.String`), and the mirror interval rule. */
import { parseDuration } from '@cairn/config';
import { CairnError } from '@cairn/rpc';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;

/** Go's `Duration.String` for a whole number of milliseconds: "8h0m0s", "10m0s", "1.5s", "500ms", "0s". */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < SECOND_MS) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / HOUR_MS);
  rest -= hours * HOUR_MS;
  const minutes = Math.floor(rest / MINUTE_MS);
  rest -= minutes * MINUTE_MS;
  const seconds = (rest / SECOND_MS).toString();
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

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
