/**
 * Go's net/url query handling, where Gitea's observable output depends on it: `url.ParseQuery` (pairs with
 * `;` or bad escapes are dropped), `Values.Encode` (keys sorted, `QueryEscape`d) and `strconv.Atoi`
 * (what `ctx.FormInt` returns: 0 for anything that is not a plain integer).
 */

/** Query values by key, each key's values in request order (Go's `url.Values`). */
export type GoValues = Map<string, string[]>;

function queryUnescape(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** `url.ParseQuery(rawQuery)` without the error: malformed pairs are left out, as Go leaves them out. */
export function parseGoQuery(rawQuery: string): GoValues {
  const values: GoValues = new Map();
  // Most requests have no query: nothing to split.
  if (rawQuery === '') return values;
  for (const part of rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const key = queryUnescape(eq < 0 ? part : part.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : part.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    const list = values.get(key);
    if (list === undefined) values.set(key, [value]);
    else list.push(value);
  }
  return values;
}

/** `url.QueryEscape`: everything but letters, digits and `-_.~` is %XX-escaped, space becomes `+`. */
export function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `url.Values.Encode`: sorted by key, values of a key in order. */
export function encodeGoQuery(values: GoValues): string {
  const keys = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return keys
    .flatMap((key) => (values.get(key) ?? []).map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`))
    .join('&');
}

/** `ctx.FormInt(name)`: the first value through `strconv.Atoi`, 0 when absent or not an integer. */
export function goFormInt(values: GoValues, name: string): number {
  const text = values.get(name)?.[0];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const n = Number(text);
  // Atoi fails (→ 0) outside int64; beyond 2^53 precision no longer matters for a page number.
  return Math.abs(n) > 9223372036854775807 ? 0 : n;
}

/** `ctx.FormBool(name)`: `strconv.ParseBool` of the first value, false when absent or not a boolean. */
export function goFormBool(values: GoValues, name: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(values.get(name)?.[0] ?? '');
}

/**
 * `ctx.FormOptionalBool(name)`: undefined when absent or empty, else `strconv.ParseBool` of the value (false when
 * it is not a boolean), "on" in any case reading as true.
 */
export function goFormOptionalBool(values: GoValues, name: string): boolean | undefined {
  const text = values.get(name)?.[0] ?? '';
  if (text === '') return undefined;
  return goFormBool(values, name) || text.toLowerCase() === 'on';
}

/** `ctx.FormString(name)`: the first value, "" when absent. */
export function goFormString(values: GoValues, name: string): string {
  return values.get(name)?.[0] ?? '';
}
