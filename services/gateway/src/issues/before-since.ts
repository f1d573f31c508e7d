/**
 * Gitea's `before` and `since` query parameters (services/context/base.go GetQueryBeforeSince): trimmed, parsed as
 * Go's time.RFC3339 (fractional seconds allowed, as Go's parser takes them), unset when empty or Go's zero time.
 * A value that does not parse is 422 with Go's own message, e.g.
 * `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`.
 */
import { HttpError, type GoValues, goFormString } from '@cairn/http';

export interface BeforeSince {
  before?: Date;
  since?: Date;
}

const LAYOUT = '2006-01-02T15:04:05Z07:00';

class GoTimeError extends Error {}

/** Go's strconv.Quote for the texts a query holds (JSON's escaping agrees for them). */
function quote(text: string): string {
  return JSON.stringify(text);
}

function cannotParse(value: string, rest: string, element: string): GoTimeError {
  return new GoTimeError(`parsing time ${quote(value)} as ${quote(LAYOUT)}: cannot parse ${quote(rest)} as ${quote(element)}`);
}

function outOfRange(value: string, what: string): GoTimeError {
  return new GoTimeError(`parsing time ${quote(value)}: ${what} out of range`);
}

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Go's time.Parse(time.RFC3339, value), element by element as its parser goes, with its messages. */
export function parseGoRfc3339(value: string): Date {
  let rest = value;
  const digits = (count: number, element: string, atMost = count): number => {
    const match = new RegExp(`^\\d{${count === atMost ? count : `${count},${atMost}`}}`).exec(rest);
    if (match === null) throw cannotParse(value, rest, element);
    rest = rest.slice(match[0].length);
    return Number(match[0]);
  };
  const literal = (text: string): void => {
    if (!rest.startsWith(text)) throw cannotParse(value, rest, text);
    rest = rest.slice(text.length);
  };
  const year = digits(4, '2006');
  literal('-');
  const month = digits(2, '01');
  if (month < 1 || month > 12) throw outOfRange(value, 'month');
  literal('-');
  const day = digits(2, '02');
  literal('T');
  const hour = digits(1, '15', 2);
  if (hour > 23) throw outOfRange(value, 'hour');
  literal(':');
  const minute = digits(2, '04');
  if (minute > 59) throw outOfRange(value, 'minute');
  literal(':');
  const second = digits(2, '05');
  if (second > 59) throw outOfRange(value, 'second');
  // Go takes a fraction after the seconds although the layout has none.
  const fraction = /^[.,](\d+)/.exec(rest);
  let millis = 0;
  if (fraction !== null) {
    millis = Math.floor(Number(`0.${fraction[1]}`) * 1000);
    rest = rest.slice(fraction[0].length);
  }
  let offsetMinutes = 0;
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else {
    const zone = /^([+-])(\d{2}):(\d{2})/.exec(rest);
    if (zone === null) throw cannotParse(value, rest, 'Z07:00');
    offsetMinutes = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]));
    rest = rest.slice(zone[0].length);
  }
  if (rest !== '') throw new GoTimeError(`parsing time ${quote(value)}: extra text: ${quote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) throw outOfRange(value, 'day');
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}

/** Go's zero time.Time (0001-01-01T00:00:00Z), which Gitea reads as "not given" (Date.UTC would read year 1 as 1901). */
const GO_ZERO_TIME_MS = new Date(0).setUTCFullYear(1, 0, 1);

function timeParam(query: GoValues, name: string): Date | undefined {
  const text = goFormString(query, name).trim();
  if (text === '') return undefined;
  let date: Date;
  try {
    date = parseGoRfc3339(text);
  } catch (error) {
    if (error instanceof GoTimeError) throw HttpError.unprocessable(error.message);
    throw error;
  }
  return date.getTime() === GO_ZERO_TIME_MS ? undefined : date;
}

/** `before` and `since` of the request; 422 when either does not parse (`before` is read first, as Gitea does). */
export function queryBeforeSince(query: GoValues): BeforeSince {
  const before = timeParam(query, 'before');
  const since = timeParam(query, 'since');
  return { before, since };
}
