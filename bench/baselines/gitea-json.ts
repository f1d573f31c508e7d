/**
 * JSON the way Cairn's gateway writes it (libs/http `goJson`, `goTime`), so a baseline's body is
 * byte-for-byte Cairn's and costs the same to produce. Baselines carry their own copy on purpose: they must
 * not run Cairn's code.
 */

export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8';

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

export function goJson(value: unknown): string {
  return `${JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c])}\n`;
}

export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

export function goTime(date: Date | null): string {
  if (date === null || Number.isNaN(date.getTime())) return GO_ZERO_TIME;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
