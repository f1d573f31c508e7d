/**
 * Slonik 47 attaches the zod schema of `sql.type(schema)` to the query but does not apply it; this
 * interceptor does, so every row is validated (and transformed) before callers see it.
 */
import { type Interceptor, type QueryResultRow, SchemaValidationError } from 'slonik';

export function createResultParserInterceptor(): Interceptor {
  return {
    name: 'cairn-result-parser',
    transformRow: (context, query, row) => {
      const parser = context.resultParser;
      if (parser === undefined) return row;
      const result = parser.safeParse(row);
      if (!result.success) {
        throw new SchemaValidationError(query, row, result.error.issues);
      }
      return result.data as QueryResultRow;
    },
  };
}
