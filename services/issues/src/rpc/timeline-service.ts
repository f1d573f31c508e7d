/**
 * CommentService.ListTimeline (Gitea's ListIssueCommentsAndTimeline): an issue's or pull request's comments and
 * events, oldest first, paged, filtered on their updated time.
 * - Readable like the comment list: the issue's unit (issues or pull requests), else NOT_FOUND.
 * - Every type but code comments (they belong to their review); a pending review's entries only to its reviewer.
 * - Referenced objects come with the entry only when they are the repository's: its (or its owner's) labels, its
 *   milestones, the issue's tracked times. Users and teams are ids (the gateway looks them up).
 */
import type { CommonQueryMethods } from '@cairn/db';
import type { ListTimelineRequest, ListTimelineResponse, TimelineEntry } from '@cairn/proto/cairn/issues/v1/issues_service';
import { readableIssue } from '../domain/issue-access';
import { pageWindow } from '../domain/paging';
import { accessOf } from '../domain/permissions';
import { toLabel, toMilestone, type IssueRow } from '../store/issues';
import { findTimelineLabels, findTimelineMilestones, listTimeline, type TimelineRow } from '../store/timeline';
import { findIssueTrackedTimes, toTrackedTime } from '../store/tracked-times';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** The entries with what they reference: one query per kind of reference for the whole page. */
async function toTimelineEntries(db: CommonQueryMethods, issue: IssueRow, ownerId: number, rows: readonly TimelineRow[]): Promise<TimelineEntry[]> {
  const positive = (ids: number[]): number[] => ids.filter((id) => id > 0);
  const [labels, milestones, times] = await Promise.all([
    findTimelineLabels(db, { repoId: issue.repo_id, ownerId }, positive(rows.map((row) => row.label_id))),
    findTimelineMilestones(db, issue.repo_id, positive(rows.flatMap((row) => [row.milestone_id, row.old_milestone_id]))),
    findIssueTrackedTimes(db, issue.id, positive(rows.map((row) => row.time_id))),
  ]);
  const labelById = new Map(labels.map((label) => [label.id, toLabel(label)]));
  const milestoneById = new Map(milestones.map((milestone) => [milestone.id, toMilestone(milestone)]));
  const timeById = new Map(times.map((time) => [time.id, toTrackedTime(time)]));
  return rows.map((row) => ({
    id: row.id,
    repoId: row.repo_id,
    issueId: row.issue_id,
    issueIndex: row.issue_index,
    issueIsPull: row.issue_is_pull,
    type: row.type,
    posterId: row.poster_id,
    body: row.body,
    created: row.created,
    updated: row.updated,
    originalAuthor: row.original_author,
    originalAuthorId: row.original_author_id,
    oldTitle: row.old_title,
    newTitle: row.new_title,
    oldRef: row.old_ref,
    newRef: row.new_ref,
    label: labelById.get(row.label_id),
    oldMilestone: milestoneById.get(row.old_milestone_id),
    milestone: milestoneById.get(row.milestone_id),
    assigneeId: row.assignee_id,
    assigneeTeamId: row.assignee_team_id,
    removedAssignee: row.removed_assignee,
    reviewId: row.review_id,
    trackedTime: timeById.get(row.time_id),
    resolveDoerId: row.resolve_doer_id,
    // Gitea's RefCommitSHA is the entry's commit whatever its type: a commit_ref's referencing commit, a code comment's.
    refCommitSha: row.commit_sha,
  }));
}

export function listTimelineOf(context: IssuesContext, request: ListTimelineRequest): Promise<ListTimelineResponse> {
  const access = accessOf(request.scope);
  const { db } = context;
  return guard(async () => {
    const issue = await readableIssue(db.pool, access, request.index);
    const { rows, total } = await listTimeline(
      db.pool,
      { issueId: issue.id, viewerId: access.viewer.id, since: request.since, before: request.before },
      pageWindow(request.page),
    );
    return { entries: await toTimelineEntries(db.pool, issue, access.repository.ownerId, rows), total };
  });
}
