/**
 * The `pull_auto_merges` table (Gitea's models/pull/automerge.go): one scheduled merge per pull request, inserted by
 * MergePull with merge_when_checks_succeed, deleted by CancelAutoMerge and by the table's trigger when the pull
 * request is closed (merging closes it), claimed by one try at a time.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { PULL_COLUMNS, pullRow, type PullRow } from './pulls';

const AUTO_MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'] as const;
export type AutoMergeStyle = (typeof AUTO_MERGE_STYLES)[number];

const autoMergeRow = z.object({
  issue_id: z.number(),
  doer_id: z.number(),
  merge_style: z.enum(AUTO_MERGE_STYLES),
  message: z.string(),
  delete_branch_after_merge: z.boolean(),
  created: z.date(),
});
export type AutoMergeRow = z.infer<typeof autoMergeRow>;
const COLUMNS = sql.fragment`issue_id, doer_id, merge_style, message, delete_branch_after_merge, created`;

export interface NewAutoMerge {
  issueId: number;
  doerId: number;
  style: AutoMergeStyle;
  message: string;
  deleteBranchAfterMerge: boolean;
}

/** Records the schedule; false when the pull request already has one (Gitea's ErrAlreadyScheduledToAutoMerge). */
export async function insertAutoMerge(tx: DatabaseTransactionConnection, merge: NewAutoMerge): Promise<boolean> {
  const inserted = await tx.maybeOne(sql.type(z.object({ issue_id: z.number() }))`
    INSERT INTO pull_auto_merges (issue_id, doer_id, merge_style, message, delete_branch_after_merge)
    VALUES (${merge.issueId}, ${merge.doerId}, ${merge.style}, ${merge.message}, ${merge.deleteBranchAfterMerge})
    ON CONFLICT (issue_id) DO NOTHING
    RETURNING issue_id`);
  return inserted !== null;
}

export async function findAutoMerge(db: CommonQueryMethods, issueId: number): Promise<AutoMergeRow | undefined> {
  const row = await db.maybeOne(sql.type(autoMergeRow)`SELECT ${COLUMNS} FROM pull_auto_merges WHERE issue_id = ${issueId}`);
  return row ?? undefined;
}

/** Deletes the schedule; false when there was none. */
export async function deleteAutoMerge(db: CommonQueryMethods, issueId: number): Promise<boolean> {
  const deleted = await db.maybeOne(sql.type(z.object({ issue_id: z.number() }))`
    DELETE FROM pull_auto_merges WHERE issue_id = ${issueId} RETURNING issue_id`);
  return deleted !== null;
}

/** The open, unmerged pull requests into repository `repoId` whose head is `headCommitId` and that have a schedule. */
export async function findScheduledPullsByHead(db: CommonQueryMethods, repoId: number, headCommitId: string): Promise<PullRow[]> {
  const rows = await db.any(sql.type(pullRow)`
    SELECT ${PULL_COLUMNS} FROM pull_auto_merges a JOIN pull_requests p ON p.issue_id = a.issue_id JOIN issues i ON i.id = p.issue_id
    WHERE i.repo_id = ${repoId} AND p.head_commit_id = ${headCommitId} AND NOT i.is_closed AND NOT p.has_merged
    ORDER BY i.index`);
  return [...rows];
}

/**
 * Claims the schedule for one try (`trying_since`): the row; 'busy' while another try holds a claim younger than
 * `staleAfterMs`; undefined when there is no schedule.
 */
export async function claimAutoMerge(db: CommonQueryMethods, issueId: number, staleAfterMs: number): Promise<AutoMergeRow | 'busy' | undefined> {
  const claimed = await db.maybeOne(sql.type(autoMergeRow)`
    UPDATE pull_auto_merges SET trying_since = now()
    WHERE issue_id = ${issueId} AND (trying_since IS NULL OR trying_since < now() - ${staleAfterMs}::int * interval '1 millisecond')
    RETURNING ${COLUMNS}`);
  if (claimed !== null) return claimed;
  return (await findAutoMerge(db, issueId)) === undefined ? undefined : 'busy';
}

/** Ends a try's claim (the row is gone already when the try merged). */
export async function releaseAutoMerge(db: CommonQueryMethods, issueId: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE pull_auto_merges SET trying_since = NULL WHERE issue_id = ${issueId}`);
}
