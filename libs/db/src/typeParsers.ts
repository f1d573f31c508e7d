/**
 * How column values come back. Replaces slonik's preset, which gives int8 as bigint and timestamps as
 * epoch-millisecond numbers.
 */
import { types } from 'pg';
import { type DriverTypeParser, createDateTypeParser, createIntervalTypeParser } from 'slonik';

/** ids are int8; a value past 2^53 would silently lose precision, so it fails the query instead. */
function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new RangeError(`int8 value ${value} does not fit in a JavaScript number`);
  }
  return parsed;
}

function parseNumeric(value: string): number {
  return Number.parseFloat(value);
}

/** pg's own timestamptz reader (postgres-date): handles offsets like +05:30, BC years and ±infinity. */
const pgTimestamptzParser: (value: string) => Date | number = types.getTypeParser(types.builtins.TIMESTAMPTZ);

/** timestamp without time zone is read as UTC, not in the process time zone as pg would. */
function parseTimestamp(value: string): Date | number {
  if (value === 'infinity' || value === '-infinity') return pgTimestamptzParser(value);
  const bc = value.endsWith(' BC');
  return pgTimestamptzParser(bc ? `${value.slice(0, -3)}+00 BC` : `${value}+00`);
}

export function createCairnTypeParsers(): readonly DriverTypeParser[] {
  return [
    { name: 'int8', parse: parseInt8 },
    { name: 'numeric', parse: parseNumeric },
    { name: 'timestamptz', parse: pgTimestamptzParser },
    { name: 'timestamp', parse: parseTimestamp },
    // date stays a 'YYYY-MM-DD' string and interval becomes seconds, as in slonik's preset.
    createDateTypeParser(),
    createIntervalTypeParser(),
  ];
}
