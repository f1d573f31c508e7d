/**
 * The `{id}` of a milestone route, as Gitea's getMilestoneByIDOrName reads it: a number in Go's strconv.ParseInt
 * base-0 syntax (decimal, `0x…`, `0o…`, `0b…`, a leading `0` for octal, `_` between digits) names an id, tried
 * first; the text as it is is a title, tried when no milestone has that id.
 */

const GO_INT = /^[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** The id the text names, or 0 (Gitea's value when it does not parse or is out of int64's range). */
export function milestoneIdOf(text: string): number {
  if (!GO_INT.test(text)) return 0;
  const negative = text.startsWith('-');
  let digits = text.replace(/^[+-]/, '').replace(/_/g, '');
  // BigInt reads 0x/0o/0b itself; Go's bare leading 0 is octal.
  if (/^0[0-7]+$/.test(digits)) digits = `0o${digits.slice(1)}`;
  const value = negative ? -BigInt(digits) : BigInt(digits);
  if (value > INT64_MAX || value < INT64_MIN) return 0;
  // Ids beyond 2^53 exist nowhere here; such a number then names no milestone by id.
  return Number.isSafeInteger(Number(value)) ? Number(value) : 0;
}
