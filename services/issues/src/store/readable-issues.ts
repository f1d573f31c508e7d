/**
 * Which issues a list of tracked times or stopwatches may show, as an SQL condition on the joined `issues i` row:
 * inside one repository, by which of its units (issues, pull requests) the viewer may read; across repositories,
 * by the repositories the gateway found the viewer may still read.
 */
import { sql, z, type FragmentSqlToken } from '@cairn/db';
import type { RepositoriesByKind } from '@cairn/proto/cairn/issues/v1/issues_service';

export type IssueVisibility =
  /** No narrowing (the viewer's own list when the gateway sent no repositories). */
  | { kind: 'all' }
  /** One repository: issues and/or pull requests. */
  | { kind: 'units'; issues: boolean; pulls: boolean }
  /** Several repositories: issues of some, pull requests of others. */
  | { kind: 'repos'; readable: RepositoriesByKind };

/** The visibility of a cross-repository request: its repositories when it names them, else everything. */
export function visibilityOf(readable: RepositoriesByKind | undefined): IssueVisibility {
  return readable === undefined ? { kind: 'all' } : { kind: 'repos', readable };
}

/** The condition on `i` (issues) and `repoColumn` (the listed row's repository) for `visibility`. */
export function visibleIssueCondition(visibility: IssueVisibility, repoColumn: FragmentSqlToken): FragmentSqlToken {
  switch (visibility.kind) {
    case 'all':
      return sql.fragment`true`;
    case 'units':
      if (visibility.issues && visibility.pulls) return sql.fragment`true`;
      if (visibility.issues) return sql.fragment`NOT i.is_pull`;
      if (visibility.pulls) return sql.fragment`i.is_pull`;
      return sql.fragment`false`;
    case 'repos': {
      const issueRepos = sql.array(visibility.readable.issueRepoIds, 'int8');
      const pullRepos = sql.array(visibility.readable.pullRepoIds, 'int8');
      return sql.fragment`((NOT i.is_pull AND ${repoColumn} = ANY(${issueRepos})) OR (i.is_pull AND ${repoColumn} = ANY(${pullRepos})))`;
    }
  }
}

const byKindRow = z.object({ repo_id: z.number(), is_pull: z.boolean() });

/** `rows` (distinct repositories and kinds) as RepositoriesByKind. */
export function repositoriesByKind(rows: ReadonlyArray<z.infer<typeof byKindRow>>): RepositoriesByKind {
  const issueRepoIds = rows.filter((row) => !row.is_pull).map((row) => row.repo_id);
  const pullRepoIds = rows.filter((row) => row.is_pull).map((row) => row.repo_id);
  return { issueRepoIds, pullRepoIds };
}

/** The row type of a `SELECT DISTINCT <repo> AS repo_id, i.is_pull` for `repositoriesByKind`. */
export const repositoryKindRow = byKindRow;
