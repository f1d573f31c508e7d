/**
 * The timeline entries a change writes, as Gitea's services decide them (models/issues/issue_update.go,
 * issue_label.go, issue_xref.go, tracked_time.go, services/pull): pure, the caller stores them in the change's
 * transaction (store/timeline.ts).
 */
/** Gitea's CommentType numbers of the entries Cairn writes (models/issues/comment.go). */
export const TimelineType = {
  reopen: 1,
  close: 2,
  /** A commit that references the issue; `commitSha` is the commit, the body Gitea's link to it. */
  commitRef: 4,
  label: 7,
  milestone: 8,
  assignees: 9,
  changeTitle: 10,
  deleteBranch: 11,
  startTracking: 12,
  stopTracking: 13,
  addTimeManual: 14,
  cancelTracking: 15,
  addedDeadline: 16,
  modifiedDeadline: 17,
  removedDeadline: 18,
  changeTargetBranch: 25,
  deleteTimeManual: 26,
  reviewRequest: 27,
  mergePull: 28,
  pullPush: 29,
  changeIssueRef: 33,
  scheduledMerge: 34,
  cancelScheduledMerge: 35,
} as const;

/** One entry to write; what its type does not reference stays at the column's zero. */
export interface TimelineEntry {
  repoId: number;
  issueId: number;
  type: number;
  posterId: number;
  body?: string;
  oldTitle?: string;
  newTitle?: string;
  oldRef?: string;
  newRef?: string;
  labelId?: number;
  oldMilestoneId?: number;
  milestoneId?: number;
  assigneeId?: number;
  assigneeTeamId?: number;
  removedAssignee?: boolean;
  timeId?: number;
  commitSha?: string;
}


/** Who made the change, where. */
export interface EntryPlace {
  repoId: number;
  issueId: number;
  posterId: number;
}

/** Gitea's TimeStamp.FormatDate ("2006-01-02"), in UTC. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Gitea's createDeadlineComment: added (new date), modified ("new|old") or removed (the old date). */
export function deadlineEntry(place: EntryPlace, before: Date | null, after: Date | null): TimelineEntry | undefined {
  if (after === null) return before === null ? undefined : { ...place, type: TimelineType.removedDeadline, body: formatDate(before) };
  if (before === null) return { ...place, type: TimelineType.addedDeadline, body: formatDate(after) };
  return { ...place, type: TimelineType.modifiedDeadline, body: `${formatDate(after)}|${formatDate(before)}` };
}

/** Gitea's git.RefName.ShortName for branches and tags (what ChangeIssueRef stores). */
export function shortRef(ref: string): string {
  for (const prefix of ['refs/heads/', 'refs/tags/']) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}

/** Gitea's toggleUserAssignee: one entry per user removed, then one per user added. */
export function assigneeEntries(place: EntryPlace, change: { added: readonly number[]; removed: readonly number[] }): TimelineEntry[] {
  return [
    ...change.removed.map((assigneeId) => ({ ...place, type: TimelineType.assignees, assigneeId, removedAssignee: true })),
    ...change.added.map((assigneeId) => ({ ...place, type: TimelineType.assignees, assigneeId })),
  ];
}

/** Gitea's newIssueLabel / deleteIssueLabel: content "1" for an added label, "" for a removed one. */
export function labelEntries(place: EntryPlace, change: { added: readonly number[]; removed: readonly number[] }): TimelineEntry[] {
  return [
    ...change.removed.map((labelId) => ({ ...place, type: TimelineType.label, labelId })),
    ...change.added.map((labelId) => ({ ...place, type: TimelineType.label, labelId, body: '1' })),
  ];
}

export function milestoneEntry(place: EntryPlace, oldMilestoneId: number | null, milestoneId: number | null): TimelineEntry {
  return { ...place, type: TimelineType.milestone, oldMilestoneId: oldMilestoneId ?? 0, milestoneId: milestoneId ?? 0 };
}

/**
 * Gitea's doChangeIssueStatus: reopen or close; a merge closes with merge_pull instead (no close entry). */
export function stateEntry(place: EntryPlace, closed: boolean, merged = false): TimelineEntry {
  return { ...place, type: closed ? (merged ? TimelineType.mergePull : TimelineType.close) : TimelineType.reopen };
}

/** Gitea's tracked-time entries keep the seconds as "|<seconds>" (1.21 on). */
export function secondsBody(seconds: number): string {
  return `|${seconds}`;
}

/** Gitea's PushActionContent: the commits a push added, oldest first, or the old and new head of a force push. */
export function pushBody(isForcePush: boolean, commitIds: readonly string[]): string {
  return JSON.stringify({ is_force_push: isForcePush, commit_ids: commitIds });
}
