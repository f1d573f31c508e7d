/**
 * Timeline entries: `comments` rows of a type other than 0 (Gitea's CommentType), written in the transaction of the
 * change they record, and the timeline read (every type but code comments, oldest first). The num_comments trigger
 * and the comment API count and list type 0 only, so entries are never comments.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { PageWindow } from '../domain/paging';
import { type TimelineEntry, TimelineType } from '../domain/timeline-entries';
import { CODE_COMMENT, type UpdatedWindow, updatedConditions } from './comments';
import { LABEL_COLUMNS, type LabelRow, MILESTONE_COLUMNS, type MilestoneRow, labelRow, milestoneRow } from './issues';

/** Writes the entries in the order given (one statement; ids follow that order, `created` is the transaction's). */
export async function insertTimelineEntries(tx: DatabaseTransactionConnection, entries: readonly TimelineEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const records = entries.map((entry) => ({
    repo_id: entry.repoId,
    issue_id: entry.issueId,
    type: entry.type,
    poster_id: entry.posterId,
    body: entry.body ?? '',
    old_title: entry.oldTitle ?? '',
    new_title: entry.newTitle ?? '',
    old_ref: entry.oldRef ?? '',
    new_ref: entry.newRef ?? '',
    label_id: entry.labelId ?? 0,
    old_milestone_id: entry.oldMilestoneId ?? 0,
    milestone_id: entry.milestoneId ?? 0,
    assignee_id: entry.assigneeId ?? 0,
    assignee_team_id: entry.assigneeTeamId ?? 0,
    removed_assignee: entry.removedAssignee ?? false,
    time_id: entry.timeId ?? 0,
    commit_sha: entry.commitSha ?? '',
  }));
  await tx.query(sql.unsafe`
    INSERT INTO comments (repo_id, issue_id, type, poster_id, body, old_title, new_title, old_ref, new_ref, label_id,
                          old_milestone_id, milestone_id, assignee_id, assignee_team_id, removed_assignee, time_id, commit_sha)
    SELECT e.repo_id, e.issue_id, e.type, e.poster_id, e.body, e.old_title, e.new_title, e.old_ref, e.new_ref, e.label_id,
           e.old_milestone_id, e.milestone_id, e.assignee_id, e.assignee_team_id, e.removed_assignee, e.time_id, e.commit_sha
    FROM ROWS FROM (jsonb_to_recordset(${sql.jsonb(records)}) AS (
      repo_id bigint, issue_id bigint, type smallint, poster_id bigint, body text, old_title text, new_title text,
      old_ref text, new_ref text, label_id bigint, old_milestone_id bigint, milestone_id bigint, assignee_id bigint,
      assignee_team_id bigint, removed_assignee boolean, time_id bigint, commit_sha text)) WITH ORDINALITY AS e(
      repo_id, issue_id, type, poster_id, body, old_title, new_title, old_ref, new_ref, label_id, old_milestone_id,
      milestone_id, assignee_id, assignee_team_id, removed_assignee, time_id, commit_sha, ord)
    ORDER BY e.ord`);
}

/** Whether the issue already has a commit_ref entry for this commit (a commit pushed again refers once). */
export async function hasCommitReference(db: CommonQueryMethods, issueId: number, commitSha: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM comments WHERE issue_id = ${issueId} AND type = ${TimelineType.commitRef} AND commit_sha = ${commitSha}`);
}

export const timelineRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  issue_id: z.number(),
  issue_index: z.number(),
  issue_is_pull: z.boolean(),
  type: z.number(),
  poster_id: z.number(),
  original_author: z.string(),
  original_author_id: z.number(),
  body: z.string(),
  created: z.date(),
  updated: z.date(),
  old_title: z.string(),
  new_title: z.string(),
  old_ref: z.string(),
  new_ref: z.string(),
  label_id: z.number(),
  old_milestone_id: z.number(),
  milestone_id: z.number(),
  assignee_id: z.number(),
  assignee_team_id: z.number(),
  removed_assignee: z.boolean(),
  review_id: z.number(),
  time_id: z.number(),
  resolve_doer_id: z.number(),
  commit_sha: z.string(),
});
export type TimelineRow = z.infer<typeof timelineRow>;

export interface TimelineFilter extends UpdatedWindow {
  issueId: number;
  /** The viewer (0: anonymous): a pending review's entries are shown to its reviewer only. */
  viewerId: number;
}

/** A page of the issue's timeline, oldest first (created, then id), and how many entries the viewer may see. */
export async function listTimeline(
  db: CommonQueryMethods,
  filter: TimelineFilter,
  window: PageWindow | undefined,
): Promise<{ rows: TimelineRow[]; total: number }> {
  const conditions = [
    sql.fragment`c.issue_id = ${filter.issueId}`,
    // Gitea's timeline leaves code comments out (they belong to their review).
    sql.fragment`c.type <> ${CODE_COMMENT}`,
    sql.fragment`(c.review_id IS NULL OR EXISTS (
      SELECT 1 FROM reviews r WHERE r.id = c.review_id AND (r.type <> 0 OR r.reviewer_id = ${filter.viewerId})))`,
    ...updatedConditions(filter),
  ];
  const where = sql.join(conditions, sql.fragment` AND `);
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const [rows, total] = await Promise.all([
    db.any(sql.type(timelineRow)`
      SELECT c.id, c.repo_id, c.issue_id, i.index AS issue_index, i.is_pull AS issue_is_pull, c.type, c.poster_id,
             c.original_author, c.original_author_id, c.body, c.created, c.updated, c.old_title, c.new_title, c.old_ref,
             c.new_ref, c.label_id, c.old_milestone_id, c.milestone_id, c.assignee_id, c.assignee_team_id,
             c.removed_assignee, COALESCE(c.review_id, 0)::int8 AS review_id, c.time_id, c.resolve_doer_id, c.commit_sha
      FROM comments c JOIN issues i ON i.id = c.issue_id
      WHERE ${where} ORDER BY c.created, c.id ${paging}`),
    db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int8 AS n FROM comments c WHERE ${where}`),
  ]);
  return { rows: [...rows], total };
}

/** Labels by id that belong to repository `repoId` or to its owner `ownerId` (an organization's labels). */
export async function findTimelineLabels(db: CommonQueryMethods, place: { repoId: number; ownerId: number }, ids: readonly number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(labelRow)`
    SELECT ${LABEL_COLUMNS} FROM labels l
    WHERE l.id = ANY(${sql.array([...new Set(ids)], 'int8')}) AND (l.repo_id = ${place.repoId} OR (l.org_id > 0 AND l.org_id = ${place.ownerId}))`);
  return [...rows];
}

/** Milestones by id of repository `repoId`. */
export async function findTimelineMilestones(db: CommonQueryMethods, repoId: number, ids: readonly number[]): Promise<MilestoneRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(milestoneRow)`
    SELECT ${MILESTONE_COLUMNS} FROM milestones m WHERE m.id = ANY(${sql.array([...new Set(ids)], 'int8')}) AND m.repo_id = ${repoId}`);
  return [...rows];
}
