/**
 * Issue search across repositories (Gitea's SearchIssues): issues of the repositories whose issues the viewer may
 * read and pull requests of those whose pull requests they may read, under the shared filters, newest first (by
 * creation, which the identity column follows), with the number that match.
 */
import { sql, z, type CommonQueryMethods, type FragmentSqlToken } from '@cairn/db';
import { ISSUE_COLUMNS, issueRow } from './issues';
import { type IssueConditions, issueConditions } from './issue-filter';
import type { IssuePage } from './issue-list';

export interface SearchQuery {
  /** Repositories whose issues (is_pull false) may be listed. */
  issueRepoIds: readonly number[];
  /** Repositories whose pull requests may be listed. */
  pullRepoIds: readonly number[];
  conditions: IssueConditions;
  skip: number;
  limit: number;
}

export async function searchIssuePage(db: CommonQueryMethods, query: SearchQuery): Promise<IssuePage> {
  const issueRepos = sql.array([...new Set(query.issueRepoIds)], 'int8');
  const pullRepos = sql.array([...new Set(query.pullRepoIds)], 'int8');
  const allRepos = sql.array([...new Set([...query.issueRepoIds, ...query.pullRepoIds])], 'int8');
  const where: FragmentSqlToken[] = [
    sql.fragment`((NOT i.is_pull AND i.repo_id = ANY(${issueRepos})) OR (i.is_pull AND i.repo_id = ANY(${pullRepos})))`,
    ...issueConditions(query.conditions, sql.fragment`c.repo_id = ANY(${allRepos})`),
  ];
  const condition = sql.join(where, sql.fragment` AND `);
  const [rows, total] = await Promise.all([
    db.any(sql.type(issueRow)`SELECT ${ISSUE_COLUMNS} FROM issues i WHERE ${condition} ORDER BY i.id DESC LIMIT ${query.limit} OFFSET ${query.skip}`),
    db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int8 AS count FROM issues i WHERE ${condition}`),
  ]);
  return { rows: [...rows], total };
}
