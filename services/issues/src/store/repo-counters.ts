/** Open issues and open pull requests per repository, read from the trigger-kept `issue_counts`. */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import type { RepoIssueCounters } from '@cairn/proto/cairn/issues/v1/issues_service';

const counterRow = z.object({ repo_id: z.number(), is_pull: z.boolean(), n: z.number() });

/** One entry per repository asked (each once, in the order asked); zero where nothing was ever opened. */
export async function openCounters(db: CommonQueryMethods, repoIds: readonly number[]): Promise<RepoIssueCounters[]> {
  const wanted = [...new Set(repoIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (wanted.length === 0) return [];
  const rows = await db.any(sql.type(counterRow)`
    SELECT repo_id, is_pull, n FROM issue_counts WHERE repo_id = ANY(${sql.array(wanted, 'int8')}) AND NOT is_closed`);
  const counters = new Map(wanted.map((repoId) => [repoId, { repoId, openIssues: 0, openPulls: 0 }]));
  for (const row of rows) {
    const counter = counters.get(row.repo_id);
    if (counter === undefined) continue;
    if (row.is_pull) counter.openPulls = row.n;
    else counter.openIssues = row.n;
  }
  return [...counters.values()];
}
