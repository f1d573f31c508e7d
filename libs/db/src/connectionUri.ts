/**
 * search_path travels in the connection URI as the libpq `options` parameter (`-c search_path=…`), so
 * PostgreSQL applies it when each session starts: no per-query SET, and nothing for a connection reset
 * to undo.
 */
import { assertSchemaName } from './schema';

export function withSearchPath(url: string, schema: string): string {
  assertSchemaName(schema);
  const parsed = new URL(url);
  const existing = parsed.searchParams.get('options');
  const option = `-c search_path=${schema}`;
  parsed.searchParams.set('options', existing ? `${existing} ${option}` : option);
  return parsed.toString();
}
