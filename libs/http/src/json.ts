/**
 * JSON as Gitea writes it: the content type it sends, Go's encoding (HTML-significant characters escaped,
 * a trailing newline from json.Encoder) and Go's time format.
 */

/** Gitea's exact header value (no space before `charset`). */
export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `json.NewEncoder(w).Encode(v)`: escapes <, >, & and U+2028/9 like Go, ends with a newline. */
export function goJson(value: unknown): string {
  return `${JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c])}\n`;
}

/** How Go writes a zero `time.Time`. */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC to the second, as Gitea writes its Unix-second timestamps; zero time when unset. */
export function goTime(date: Date | undefined): string {
  if (date === undefined || Number.isNaN(date.getTime())) return GO_ZERO_TIME;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
