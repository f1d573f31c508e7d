/** Pages of repositories under conditions on `repositories r`, with their total (the same conditions, counted). */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';
import type { PageWindow } from '../domain/paging';
import type { SearchOrder } from '../domain/repo-search';
import { selectRepositories, type RepoRow } from './repositories';

export interface RepoPage {
  repos: RepoRow[];
  total: number;
}

export async function pageRepositories(
  db: CommonQueryMethods,
  conditions: readonly FragmentSqlToken[],
  order: SearchOrder,
  window: PageWindow,
): Promise<RepoPage> {
  const where = conditions.length === 0 ? sql.fragment`TRUE` : sql.join(conditions, sql.fragment` AND `);
  const direction = order.direction === 'desc' ? sql.fragment`DESC` : sql.fragment`ASC`;
  const column = sql.identifier(['r', order.column]);
  const repos = await selectRepositories(db, where, sql.fragment`ORDER BY ${column} ${direction}, r.id ${direction} LIMIT ${window.limit} OFFSET ${window.offset}`);
  // Counted only when the page does not already tell: a short first page is everything.
  const total =
    window.offset === 0 && repos.length < window.limit
      ? repos.length
      : await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM repositories r WHERE ${where}`);
  return { repos, total };
}

/** LIKE pattern for `%part%`, the part's own `%`, `_` and `\` taken literally. */
export function containsPattern(part: string): string {
  return `%${part.replace(/[\\%_]/g, '\\$&')}%`;
}

/** Gitea's keyword match: any part in the name or a topic (or the description), or `owner/name` when given so. */
export function keywordCondition(parts: readonly string[], options: { includeDescription: boolean; topicOnly: boolean; ownerSlash: boolean }): FragmentSqlToken {
  if (options.topicOnly) return sql.fragment`r.topics && ${sql.array([...parts], 'text')}`;
  const matches: FragmentSqlToken[] = [];
  for (const part of parts) {
    const pattern = containsPattern(part);
    matches.push(sql.fragment`r.lower_name LIKE ${pattern}`);
    matches.push(sql.fragment`EXISTS (SELECT 1 FROM unnest(r.topics) AS topic WHERE topic LIKE ${pattern})`);
    if (options.includeDescription) matches.push(sql.fragment`lower(r.description) LIKE ${pattern}`);
    const pieces = part.split('/');
    if (options.ownerSlash && pieces.length === 2) {
      matches.push(sql.fragment`(r.lower_owner_name LIKE ${containsPattern(pieces[0])} AND r.lower_name LIKE ${containsPattern(pieces[1])})`);
    }
  }
  return sql.fragment`(${sql.join(matches, sql.fragment` OR `)})`;
}
