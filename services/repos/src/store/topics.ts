/**
 * Topics: a repository's topic names live in `repositories.topics` (sorted by name, as they are listed), the
 * `topics` table is the catalogue giving each name an id and dates.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection, type FragmentSqlToken } from '@cairn/db';
import type { PageWindow } from '../domain/paging';

/** The repository's topics, locked for a change in the transaction. */
export async function lockRepoTopics(tx: DatabaseTransactionConnection, repoId: number): Promise<string[]> {
  const topics = await tx.maybeOneFirst(sql.type(z.object({ topics: z.array(z.string()) }))`
    SELECT topics FROM repositories WHERE id = ${repoId} FOR UPDATE
  `);
  return topics === null ? [] : [...topics];
}

/**
 * Sets the repository's topics to `next` (given its `previous` ones): names new to the catalogue are added, and
 * the catalogue's `updated` moves for every name the repository gained or lost (Gitea's repo_count update).
 */
export async function saveRepoTopics(tx: DatabaseTransactionConnection, repoId: number, previous: readonly string[], next: readonly string[]): Promise<void> {
  const sorted = [...new Set(next)].sort();
  const changed = [...sorted.filter((topic) => !previous.includes(topic)), ...previous.filter((topic) => !sorted.includes(topic))];
  if (changed.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO topics (name) SELECT unnest(${sql.array(changed, 'text')})
    ON CONFLICT (name) DO UPDATE SET updated = now()
  `);
  await tx.query(sql.unsafe`UPDATE repositories SET topics = ${sql.array(sorted, 'text')} WHERE id = ${repoId}`);
}

const topicRow = z.object({ id: z.number(), name: z.string(), repo_count: z.number(), created: z.date(), updated: z.date() });
export type TopicRow = z.infer<typeof topicRow>;

/** `%keyword%` for LIKE, the keyword's own `%`, `_` and `\` taken literally. */
function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * Topics whose name contains `keyword`, each with the number of repositories in `readable` (a condition on the
 * `repositories` table) that have it; topics no such repository has are left out. Most used first, then by name.
 */
export async function searchTopics(
  db: CommonQueryMethods,
  query: { keyword: string; readable: FragmentSqlToken; window: PageWindow | undefined },
): Promise<{ topics: TopicRow[]; total: number }> {
  const counted = sql.fragment`
    SELECT t.id, t.name, count(*)::int8 AS repo_count, t.created, t.updated
    FROM topics AS t
    JOIN repositories ON repositories.topics @> ARRAY[t.name]
    WHERE t.name LIKE ${containsPattern(query.keyword.trim().toLowerCase())} AND ${query.readable}
    GROUP BY t.id
  `;
  const page = query.window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${query.window.limit} OFFSET ${query.window.offset}`;
  const topics = await db.any(sql.type(topicRow)`SELECT * FROM (${counted}) AS counted ORDER BY repo_count DESC, name ${page}`);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM (${counted}) AS counted`);
  return { topics: [...topics], total };
}
