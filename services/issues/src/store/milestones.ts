/** The `milestones` table. */
import { sql, type CommonQueryMethods } from '@cairn/db';
import { CairnError } from '@cairn/rpc';
import { MILESTONE_COLUMNS, milestoneRow, type MilestoneRow } from './issues';

/** A milestone of repository `repoId` by id; NOT_FOUND (reason milestone_not_found) when it has none by that id. */
export async function requireMilestone(db: CommonQueryMethods, repoId: number, id: number): Promise<MilestoneRow> {
  const row = Number.isSafeInteger(id) && id > 0
    ? await db.maybeOne(sql.type(milestoneRow)`SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.repo_id = ${repoId} AND m.id = ${id}`)
    : null;
  if (row === null) throw CairnError.notFound(`milestone does not exist [id: ${id}, repo_id: ${repoId}]`, { reason: 'milestone_not_found' });
  return row;
}
