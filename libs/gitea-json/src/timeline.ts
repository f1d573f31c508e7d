/**
 * issues' TimelineEntry → Gitea's `TimelineComment` JSON (services/convert/issue_comment.go `ToTimelineComment`).
 * Per answer: one accounts batch for posters, assignees and resolvers (shaped for no viewer, as Gitea's
 * `ToUser(ctx, u, nil)`; a poster whose account is gone is the Ghost user, another user null), one team batch, and
 * the tracked times through tracked-time.ts. Labels, milestones and tracked times arrive with the entry
 * (issues leaves out those that are not the repository's). Cairn has no projects, dependencies or cross references:
 * `old_project_id`/`project_id` are 0, `ref_issue`, `ref_comment` and `dependent_issue` null, `ref_action` "".
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { TimelineEntry, TrackedTime } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertServices, ConvertWith } from './services';
import type { ApiComment } from './comment';
import { ghostUser } from './ghost-user';
import { type ApiIssue, issueHtmlUrl } from './issue';
import { type ApiLabel, toApiRepoLabel } from './label';
import { type ApiMilestone, toApiMilestone } from './milestone';
import type { ApiTeam } from './org';
import { teamsById } from './review';
import { type ApiTrackedTime, toApiTrackedTimes } from './tracked-time';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `api.TimelineComment`, keys in its order. */
export interface ApiTimelineComment {
  id: number;
  type: string;
  html_url: string;
  pull_request_url: string;
  issue_url: string;
  user: ApiUser | null;
  body: string;
  created_at: string;
  updated_at: string;
  old_project_id: number;
  project_id: number;
  old_milestone: ApiMilestone | null;
  milestone: ApiMilestone | null;
  tracked_time: ApiTrackedTime | null;
  old_title: string;
  new_title: string;
  old_ref: string;
  new_ref: string;
  ref_issue: ApiIssue | null;
  ref_comment: ApiComment | null;
  ref_action: string;
  ref_commit_sha: string;
  review_id: number;
  label: ApiLabel | null;
  assignee: ApiUser | null;
  assignee_team: ApiTeam | null;
  removed_assignee: boolean;
  resolve_doer: ApiUser | null;
  dependent_issue: ApiIssue | null;
}

/** Gitea's CommentType names (models/issues/comment.go commentStrings), by number. */
const COMMENT_TYPE_NAMES: readonly string[] = [
  'comment',
  'reopen',
  'close',
  'issue_ref',
  'commit_ref',
  'comment_ref',
  'pull_ref',
  'label',
  'milestone',
  'assignees',
  'change_title',
  'delete_branch',
  'start_tracking',
  'stop_tracking',
  'add_time_manual',
  'cancel_tracking',
  'added_deadline',
  'modified_deadline',
  'removed_deadline',
  'add_dependency',
  'remove_dependency',
  'code',
  'review',
  'lock',
  'unlock',
  'change_target_branch',
  'delete_time_manual',
  'review_request',
  'merge_pull',
  'pull_push',
  'project',
  'project_board',
  'dismiss_review',
  'change_issue_ref',
  'pull_scheduled_merge',
  'pull_cancel_scheduled_merge',
  'pin',
  'unpin',
  'change_time_estimate',
];

export function commentTypeName(type: number): string {
  return COMMENT_TYPE_NAMES[type] ?? '';
}

/** stop_tracking, add_time_manual and delete_time_manual keep "|<seconds>"; Gitea shows them as SecToTime. */
const SECONDS_TYPES: ReadonlySet<number> = new Set([13, 14, 26]);

function formatUnit(value: number, name: string): string {
  if (value === 1) return `1 ${name} `;
  return value > 1 ? `${value} ${name}s ` : '';
}

/** Gitea's util.SecToTime: the two largest units ("1 hour 2 minutes", "2 weeks 4 days", "5 seconds"). */
export function secondsToTime(duration: number): string {
  const totalDays = Math.trunc(duration / 86400);
  const years = Math.trunc(totalDays / 365);
  const months = Math.trunc((totalDays - years * 365) / 30);
  const weeks = Math.trunc((totalDays - years * 365 - months * 30) / 7);
  const days = totalDays - years * 365 - months * 30 - weeks * 7;
  const hours = Math.trunc(duration / 3600) % 24;
  const minutes = Math.trunc(duration / 60) % 60;
  const seconds = duration % 60;
  let text: string;
  if (years > 0) text = formatUnit(years, 'year') + formatUnit(months, 'month');
  else if (months > 0) text = formatUnit(months, 'month') + formatUnit(weeks, 'week');
  else if (weeks > 0) text = formatUnit(weeks, 'week') + formatUnit(days, 'day');
  else if (days > 0) text = formatUnit(days, 'day') + formatUnit(hours, 'hour');
  else if (hours > 0) text = formatUnit(hours, 'hour') + formatUnit(minutes, 'minute');
  else text = formatUnit(minutes, 'minute') + formatUnit(seconds, 'second');
  return text.trimEnd();
}

function bodyOf(entry: TimelineEntry): string {
  if (!SECONDS_TYPES.has(entry.type) || !entry.body.startsWith('|')) return entry.body;
  const seconds = Number(entry.body.slice(1));
  return Number.isSafeInteger(seconds) ? secondsToTime(seconds) : entry.body;
}

/** The entries of one issue of `repository`, in the order given. */
export async function toApiTimeline(
  services: ConvertWith<'users' | 'teams' | 'issues' | 'attachments'> & Pick<ConvertServices, 'publicUsers'>,
  viewer: Actor | undefined,
  repository: Repository,
  entries: readonly TimelineEntry[],
): Promise<ApiTimelineComment[]> {
  const rootUrl = services.config.server.rootUrl;
  const userIds = [...new Set(entries.flatMap((entry) => [entry.posterId, entry.assigneeId, entry.resolveDoerId]).filter((id) => id > 0))];
  const times = entries.flatMap((entry): TrackedTime[] => (entry.trackedTime === undefined ? [] : [entry.trackedTime]));
  const [{ users }, teams, apiTimes] = await Promise.all([
    userIds.length === 0 ? { users: [] } : services.clients.users.batchGetUsers({ ids: userIds, viewer: undefined }),
    teamsById(services, viewer, entries.map((entry) => entry.assigneeTeamId)),
    toApiTrackedTimes(services, viewer, times, new Map([[repository.id, repository]])),
  ]);
  const userById = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl })]));
  const timeById = new Map(apiTimes.map((time) => [time.id, time]));
  const ghost = ghostUser(rootUrl, undefined, services.config.service.noReplyAddress);
  const userOf = (id: number): ApiUser | null => (id > 0 ? (userById.get(id) ?? null) : null);
  return entries.map((entry) => {
    const issueUrl = issueHtmlUrl(rootUrl, repository, { index: entry.issueIndex, isPull: entry.issueIsPull });
    return {
      id: entry.id,
      type: commentTypeName(entry.type),
      html_url: `${issueUrl}#issuecomment-${entry.id}`,
      pull_request_url: entry.issueIsPull ? issueUrl : '',
      issue_url: entry.issueIsPull ? '' : issueUrl,
      user: userById.get(entry.posterId) ?? ghost,
      body: bodyOf(entry),
      created_at: goTime(entry.created),
      updated_at: goTime(entry.updated),
      old_project_id: 0,
      project_id: 0,
      old_milestone: entry.oldMilestone === undefined ? null : toApiMilestone(entry.oldMilestone),
      milestone: entry.milestone === undefined ? null : toApiMilestone(entry.milestone),
      tracked_time: entry.trackedTime === undefined ? null : (timeById.get(entry.trackedTime.id) ?? null),
      old_title: entry.oldTitle,
      new_title: entry.newTitle,
      old_ref: entry.oldRef,
      new_ref: entry.newRef,
      ref_issue: null,
      ref_comment: null,
      ref_action: '',
      ref_commit_sha: entry.refCommitSha,
      review_id: entry.reviewId,
      label: entry.label === undefined ? null : toApiRepoLabel(entry.label, rootUrl, repository),
      assignee: userOf(entry.assigneeId),
      assignee_team: teams.get(entry.assigneeTeamId) ?? null,
      removed_assignee: entry.removedAssignee,
      resolve_doer: userOf(entry.resolveDoerId),
      dependent_issue: null,
    };
  });
}
