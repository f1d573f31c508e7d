/**
 * Opening and editing an issue's own fields, shared by IssueService (issues) and PullService (the issue half of a
 * pull request), so both follow the same rules: what only writers may set, mentions, content_version, state, and
 * the timeline entries of each change (Gitea's comment types, written here in the change's transaction) and the
 * IssueEvents of each change (written by the caller, after whatever else its transaction adds).
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { actorOf, CairnError, Code } from '@cairn/rpc';
import { keepLastOfEachScope } from '../domain/exclusive-labels';
import { requireBodySize, requireTitle } from '../domain/issue-text';
import { type Access, accessOf, canBeAssigned, canWrite, requireNotArchived, requireRead, requireSignedIn } from '../domain/permissions';
import {
  type EntryPlace,
  type TimelineEntry,
  TimelineType,
  assigneeEntries,
  deadlineEntry,
  labelEntries,
  milestoneEntry,
  shortRef,
  stateEntry,
} from '../domain/timeline-entries';
import { type IssueChange, enqueueIssueEvent } from '../events/issue-events';
import { attachLabels } from '../store/issue-labels';
import {
  type AssigneeChange,
  type IssueColumns,
  allocateIssueIndex,
  findAssigneeIds,
  insertIssue,
  lockIssueRow,
  replaceAssignees,
  updateIssueColumns,
} from '../store/issue-writes';
import { type IssueRow, toIssue } from '../store/issues';
import { resolveIssueLabels } from '../store/labels';
import { insertMentions, resolveMentions } from '../store/mentions';
import { requireMilestone } from '../store/milestones';
import { insertTimelineEntries } from '../store/timeline';
import type { IssuesContext } from './context';

export function requireUserIds(ids: readonly number[]): number[] {
  if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw CairnError.invalid('user does not exist', { reason: 'assignee_not_found' });
  return [...new Set(ids)];
}

/**
 * Gitea's check of the assignees a writer adds (routers/api/v1/repo/issue.go CreateIssue, pull.go CreatePullRequest,
 * services/issue/assignee.go AddAssigneeIfNotAssigned): each must be able to be assigned in the repository
 * (domain/permissions.ts canBeAssigned, on their permission as repos decides it, asked in one batch), else
 * INVALID_ARGUMENT with Gitea's ErrUserDoesNotHaveAccessToRepo message (its 422).
 */
export async function requireAssignable(context: Pick<IssuesContext, 'repos'>, access: Access, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  const { repository } = access;
  const { permissions } = await context.repos.collaborators.batchGetUserPermissions({
    viewer: actorOf(access.viewer),
    repoId: repository.id,
    userIds: [...userIds],
  });
  const granted = new Map(permissions.map(({ userId, permission }) => [userId, permission]));
  for (const userId of userIds) {
    const permission = granted.get(userId);
    if (permission === undefined) throw CairnError.invalid('user does not exist', { reason: 'assignee_not_found' });
    const theirs = accessOf({ viewer: { userId, isAdmin: false, isRestricted: false }, repository: { repository, permission } });
    if (!canBeAssigned(theirs)) {
      throw CairnError.invalid(`user doesn't have access to repo [user_id: ${userId}, repo_name: ${repository.name}]`, { reason: 'assignee_no_access' });
    }
  }
}

/** A deadline the database can hold (Gitea's are Unix seconds). */
export function requireDeadline(deadline: Date | undefined): Date | null {
  if (deadline === undefined) return null;
  const time = deadline.getTime();
  if (!Number.isFinite(time) || time < -62135596800000 || time > 253402300799000) {
    throw CairnError.invalid('due_date is out of range', { reason: 'deadline_out_of_range' });
  }
  return new Date(Math.floor(time / 1000) * 1000);
}

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a === null ? null : a.getTime()) === (b === null ? null : b.getTime());
}

/** The issue's row under a lock, for a change (it was just read, so it exists unless deleted meanwhile). */
export async function lockedRow(tx: DatabaseTransactionConnection, row: IssueRow): Promise<IssueRow> {
  const locked = await lockIssueRow(tx, row.id);
  if (locked === null) throw CairnError.notFound('issue does not exist');
  return locked;
}

/** An issue change's events, in Gitea's order of notifications. */
export interface PendingEvent {
  change: IssueChange;
  changed?: string[];
  previousTitle?: string;
  previousBody?: string;
  addedAssigneeIds?: number[];
  removedAssigneeIds?: number[];
  mentionedUserIds?: number[];
}

export async function writeEvents(tx: DatabaseTransactionConnection, access: Access, issue: Issue, events: readonly PendingEvent[]): Promise<void> {
  for (const { change, ...facts } of events) {
    await enqueueIssueEvent(tx, change, { ...facts, actorId: access.viewer.id, issue, repoPrivate: access.repository.private });
  }
}

/** What a new issue (or pull request) asks for. */
export interface IssueOpening {
  isPull: boolean;
  title: string;
  body: string;
  ref: string;
  closed: boolean;
  assigneeIds: readonly number[];
  labelIds: readonly number[];
  milestoneId: number;
  deadline?: Date;
}

/** An opening checked before its transaction: who posts, and what of it applies (writers only: the rest). */
export interface CheckedOpening {
  opening: IssueOpening;
  posterId: number;
  title: string;
  body: string;
  writer: boolean;
  assigneeIds: number[];
  deadline: Date | null;
  mentioned: number[];
}

/** A signed-in reader of the unit, in a repository that is not archived, with a valid title and body. */
export async function checkOpening(context: Pick<IssuesContext, 'users' | 'repos'>, access: Access, opening: IssueOpening): Promise<CheckedOpening> {
  requireRead(access, opening.isPull);
  const posterId = requireSignedIn(access);
  requireNotArchived(access);
  const title = requireTitle(opening.title);
  const body = requireBodySize(opening.body);
  const writer = canWrite(access, opening.isPull);
  const assigneeIds = writer ? requireUserIds(opening.assigneeIds) : [];
  const deadline = writer ? requireDeadline(opening.deadline) : null;
  await requireAssignable(context, access, assigneeIds);
  const mentioned = await resolveMentions(context, body, access.viewer);
  return { opening, posterId, title, body, writer, assigneeIds, deadline, mentioned };
}

export interface OpenedIssue {
  row: IssueRow;
  issue: Issue;
  /** The IssueEvents to write once the transaction's other rows are in (writeEvents). */
  events: PendingEvent[];
}

/** Numbers and stores the issue with its labels, assignees and mentions. */
export async function openIssue(tx: DatabaseTransactionConnection, access: Access, checked: CheckedOpening): Promise<OpenedIssue> {
  const { opening, writer } = checked;
  const repoId = access.repository.id;
  const milestone = writer && opening.milestoneId !== 0 ? await requireMilestone(tx, repoId, opening.milestoneId) : null;
  const labels = writer ? await resolveIssueLabels(tx, { repoId, ownerId: access.repository.ownerId }, opening.labelIds, []) : [];
  const index = await allocateIssueIndex(tx, repoId);
  const row = await insertIssue(tx, {
    repoId,
    index,
    posterId: checked.posterId,
    title: checked.title,
    body: checked.body,
    ref: opening.ref,
    isPull: opening.isPull,
    isClosed: opening.closed,
    milestoneId: milestone?.id ?? null,
    deadline: checked.deadline,
  });
  // One label per exclusive scope: the one named last in the request.
  const requested = [...labels].sort((a, b) => opening.labelIds.lastIndexOf(a.id) - opening.labelIds.lastIndexOf(b.id));
  const attached = keepLastOfEachScope(requested).map((label) => label.id);
  await attachLabels(tx, row.id, attached);
  const assigned = await replaceAssignees(tx, row.id, checked.assigneeIds);
  // Gitea's NewIssue: an entry per label and for the milestone, then one per assignee.
  const place = { repoId, issueId: row.id, posterId: checked.posterId };
  await insertTimelineEntries(tx, [
    ...labelEntries(place, { added: [...attached].sort((a, b) => a - b), removed: [] }),
    ...(row.milestone_id === null ? [] : [milestoneEntry(place, null, row.milestone_id)]),
    ...assigneeEntries(place, assigned),
  ]);
  const newlyMentioned = await insertMentions(tx, row.id, checked.mentioned);
  const issue = await toIssue(tx, row);
  const events: PendingEvent[] = [{ change: 'opened', addedAssigneeIds: assigned.added, mentionedUserIds: newlyMentioned }];
  if (assigned.added.length > 0) events.push({ change: 'assigned', changed: ['assignees'], addedAssigneeIds: assigned.added });
  if (opening.closed) events.push({ change: 'closed', changed: ['state'] });
  return { row, issue, events };
}

/** An edit of the issue's own fields, as EditIssueRequest names them (`fields` says which are given). */
export interface IssueEdit {
  fields: ReadonlySet<string>;
  title: string;
  body: string;
  ref: string;
  state: string;
  contentVersion: number;
  assigneeIds: readonly number[];
  milestoneId: number;
  deadline?: Date;
}

/** The request's own checks, before anything is read: signed in, not archived, a known state, title and body. */
export function checkEditRequest(access: Access, edit: IssueEdit): void {
  requireSignedIn(access);
  requireNotArchived(access);
  if (edit.fields.has('state') && edit.state !== 'open' && edit.state !== 'closed') {
    throw CairnError.precondition(`unknown state: ${edit.state}`, { reason: 'unknown_state' });
  }
  if (edit.fields.has('title') && edit.title !== '') requireTitle(edit.title);
  if (edit.fields.has('body')) requireBodySize(edit.body);
}

export interface CheckedEdit {
  edit: IssueEdit;
  writer: boolean;
  assigneeIds: number[] | undefined;
  deadline: Date | null | undefined;
  mentioned: number[];
}

/**
 * The poster or a writer may edit (else a bare PERMISSION_DENIED); assignees and deadline are for writers, and the
 * assignees they add must be assignable (those already assigned stay, as Gitea's UpdateAssignees keeps them).
 */
export async function checkEdit(
  context: Pick<IssuesContext, 'users' | 'repos' | 'db'>,
  access: Access,
  current: IssueRow,
  edit: IssueEdit,
): Promise<CheckedEdit> {
  const writer = canWrite(access, current.is_pull);
  if (current.poster_id !== access.viewer.id && !writer) throw CairnError.denied('', { reason: 'issue_edit_forbidden' });
  const assigneeIds = writer && edit.fields.has('assignees') ? requireUserIds(edit.assigneeIds) : undefined;
  if (assigneeIds !== undefined) {
    const assigned = new Set(await findAssigneeIds(context.db.pool, current.id));
    await requireAssignable(context, access, assigneeIds.filter((id) => !assigned.has(id)));
  }
  const deadline = writer && edit.fields.has('deadline') ? requireDeadline(edit.deadline) : undefined;
  const mentioned = edit.fields.has('body') ? await resolveMentions(context, edit.body, access.viewer) : [];
  return { edit, writer, assigneeIds, deadline, mentioned };
}

export interface EditedIssue {
  before: IssueRow;
  after: IssueRow;
  issue: Issue;
  events: PendingEvent[];
}

/** Applies the edit to the locked row `row`; `editorId` is who the timeline entries name. */
export async function applyEdit(tx: DatabaseTransactionConnection, row: IssueRow, checked: CheckedEdit, editorId: number): Promise<EditedIssue> {
  const { edit, writer, assigneeIds, deadline } = checked;
  const { fields } = edit;
  if (fields.has('body') && fields.has('content_version') && edit.contentVersion !== row.content_version) {
    throw new CairnError(Code.ABORTED, 'the issue is already changed', { reason: 'content_version_mismatch' });
  }
  const columns: IssueColumns = {};
  const edited: string[] = [];
  // Gitea changes the title only when one is given (an empty title leaves it).
  if (fields.has('title') && edit.title !== '' && edit.title !== row.title) {
    columns.title = edit.title;
    edited.push('title');
  }
  if (fields.has('body') && edit.body !== row.body) {
    columns.body = edit.body;
    edited.push('body');
  }
  if (fields.has('ref') && edit.ref !== row.ref) {
    columns.ref = edit.ref;
    edited.push('ref');
  }
  if (deadline !== undefined && !sameTime(deadline, row.deadline)) {
    columns.deadline = deadline;
    edited.push('deadline');
  }
  let milestoned = false;
  if (writer && fields.has('milestone') && edit.milestoneId !== (row.milestone_id ?? 0)) {
    columns.milestoneId = edit.milestoneId === 0 ? null : (await requireMilestone(tx, row.repo_id, edit.milestoneId)).id;
    milestoned = true;
  }
  const closing = fields.has('state') ? edit.state === 'closed' : row.is_closed;
  if (closing !== row.is_closed) columns.isClosed = closing;
  const assigned = assigneeIds === undefined ? { added: [], removed: [] } : await replaceAssignees(tx, row.id, assigneeIds);
  const touched = Object.keys(columns).length > 0 || assigned.added.length > 0 || assigned.removed.length > 0;
  const after = touched ? await updateIssueColumns(tx, row.id, columns) : row;
  await insertTimelineEntries(tx, editEntries({ repoId: row.repo_id, issueId: row.id, posterId: editorId }, row, after, assigned));
  const newlyMentioned = edited.includes('body') ? await insertMentions(tx, row.id, checked.mentioned) : [];
  const issue = await toIssue(tx, after);
  const events: PendingEvent[] = [];
  if (edited.length > 0) {
    events.push({
      change: 'edited',
      changed: edited,
      previousTitle: edited.includes('title') ? row.title : undefined,
      previousBody: edited.includes('body') ? row.body : undefined,
      mentionedUserIds: newlyMentioned,
    });
  }
  if (assigned.added.length > 0 || assigned.removed.length > 0) {
    events.push({ change: 'assigned', changed: ['assignees'], addedAssigneeIds: assigned.added, removedAssigneeIds: assigned.removed });
  }
  if (milestoned) events.push({ change: 'milestoned', changed: ['milestone'] });
  if (columns.isClosed !== undefined) events.push({ change: columns.isClosed ? 'closed' : 'reopened', changed: ['state'] });
  return { before: row, after, issue, events };
}

/**
 * The timeline entries of an edit, in the order Gitea's EditIssue writes them: title, ref, deadline, assignees,
 * milestone, state.
 */
function editEntries(place: EntryPlace, before: IssueRow, after: IssueRow, assigned: AssigneeChange): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (after.title !== before.title) entries.push({ ...place, type: TimelineType.changeTitle, oldTitle: before.title, newTitle: after.title });
  if (after.ref !== before.ref) entries.push({ ...place, type: TimelineType.changeIssueRef, oldRef: shortRef(before.ref), newRef: shortRef(after.ref) });
  if (!sameTime(before.deadline, after.deadline)) {
    const deadline = deadlineEntry(place, before.deadline, after.deadline);
    if (deadline !== undefined) entries.push(deadline);
  }
  entries.push(...assigneeEntries(place, assigned));
  if (after.milestone_id !== before.milestone_id) entries.push(milestoneEntry(place, before.milestone_id, after.milestone_id));
  if (after.is_closed !== before.is_closed) entries.push(stateEntry(place, after.is_closed));
  return entries;
}
