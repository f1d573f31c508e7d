/**
 * IssueServiceService (proto/cairn/issues/v1/issues_service.proto): issues as Gitea's routers/api/v1/repo/issue.go
 * and issue_lock.go decide them.
 *
 * - Reading needs the issue's unit (issues, or pull requests for a pull request) readable: else NOT_FOUND.
 * - Creating needs a signed-in reader of the issues unit; milestone, labels, assignees and deadline are applied
 *   only for issue writers (Gitea ignores them otherwise); `closed` is honoured for everyone, as Gitea closes the
 *   new issue for its poster.
 * - Editing: the poster or an issue writer (else a bare PERMISSION_DENIED); the poster changes title, body, ref and
 *   state, writers also assignees, milestone and deadline. A body sent with a stale content_version is ABORTED.
 * - Deleting: repository admins and site admins. Locking: issue writers.
 * - Every change writes its events (events/issue-events.ts) in its transaction; archived repositories take none.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Issue, IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import { keepLastOfEachScope } from '../domain/exclusive-labels';
import { readableIssue } from '../domain/issue-access';
import { isPlain, kindsOf, requestedFilter, rowWindow, statesOf } from '../domain/issue-filters';
import { requireBodySize, requireTitle } from '../domain/issue-text';
import { type Access, accessOf, canRead, canWrite, isRepoAdmin, requireNotArchived, requireRead, requireSignedIn } from '../domain/permissions';
import { type IssueChange, enqueueIssueEvent } from '../events/issue-events';
import { attachLabels } from '../store/issue-labels';
import { resolveRepoNames, resolveSearchNames } from '../store/issue-filter';
import { filteredIssuePage, plainIssuePage } from '../store/issue-list';
import { searchIssuePage } from '../store/issue-search';
import {
  COMMENT_TYPE_LOCK,
  COMMENT_TYPE_UNLOCK,
  type IssueColumns,
  allocateIssueIndex,
  deleteIssueRow,
  insertIssue,
  insertTimelineComment,
  lockIssueRow,
  replaceAssignees,
  updateIssueColumns,
} from '../store/issue-writes';
import { type IssueRow, findIssuesByIds, toIssue, toIssues } from '../store/issues';
import { openCounters } from '../store/repo-counters';
import { resolveIssueLabels } from '../store/labels';
import { insertMentions, resolveMentions } from '../store/mentions';
import { requireMilestone } from '../store/milestones';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** BatchGetIssues answers at most this many ids per call. */
export const MAX_BATCH_IDS = 1000;

function requireUserIds(ids: readonly number[]): number[] {
  if (ids.some((id) => !Number.isSafeInteger(id) || id <= 0)) throw CairnError.invalid('user does not exist', { reason: 'assignee_not_found' });
  return [...new Set(ids)];
}

/** A deadline the database can hold (Gitea's are Unix seconds). */
function requireDeadline(deadline: Date | undefined): Date | null {
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
async function lockedRow(tx: DatabaseTransactionConnection, row: IssueRow): Promise<IssueRow> {
  const locked = await lockIssueRow(tx, row.id);
  if (locked === null) throw CairnError.notFound('issue does not exist');
  return locked;
}

/** An issue change's events, in Gitea's order of notifications. */
interface PendingEvent {
  change: IssueChange;
  changed?: string[];
  previousTitle?: string;
  previousBody?: string;
  addedAssigneeIds?: number[];
  removedAssigneeIds?: number[];
  mentionedUserIds?: number[];
}

async function writeEvents(tx: DatabaseTransactionConnection, access: Access, issue: Issue, events: readonly PendingEvent[]): Promise<void> {
  for (const { change, ...facts } of events) {
    await enqueueIssueEvent(tx, change, { ...facts, actorId: access.viewer.id, issue, repoPrivate: access.repository.private });
  }
}

export function createIssueService(context: IssuesContext): AsyncServiceOf<typeof IssueServiceService> {
  const { db } = context;
  return {
    async createIssue(request) {
      const access = accessOf(request.scope);
      requireRead(access, false);
      const posterId = requireSignedIn(access);
      requireNotArchived(access);
      const title = requireTitle(request.title);
      const body = requireBodySize(request.body);
      const writer = canWrite(access, false);
      const assigneeIds = writer ? requireUserIds(request.assigneeIds) : [];
      const deadline = writer ? requireDeadline(request.deadline) : null;
      const mentioned = await resolveMentions(context, body, access.viewer);
      const issue = await guard(() =>
        db.pool.transaction(async (tx) => {
          const repoId = access.repository.id;
          const milestone = writer && request.milestoneId !== 0 ? await requireMilestone(tx, repoId, request.milestoneId) : null;
          const labels = writer ? await resolveIssueLabels(tx, { repoId, ownerId: access.repository.ownerId }, request.labelIds, []) : [];
          const index = await allocateIssueIndex(tx, repoId);
          const row = await insertIssue(tx, {
            repoId,
            index,
            posterId,
            title,
            body,
            ref: request.ref,
            isPull: false,
            isClosed: request.closed,
            milestoneId: milestone?.id ?? null,
            deadline,
          });
          // One label per exclusive scope: the one named last in the request.
          const requested = [...labels].sort((a, b) => request.labelIds.lastIndexOf(a.id) - request.labelIds.lastIndexOf(b.id));
          await attachLabels(
            tx,
            row.id,
            keepLastOfEachScope(requested).map((label) => label.id),
          );
          const assigned = await replaceAssignees(tx, row.id, assigneeIds);
          const newlyMentioned = await insertMentions(tx, row.id, mentioned);
          const created = await toIssue(tx, row);
          const events: PendingEvent[] = [{ change: 'opened', addedAssigneeIds: assigned.added, mentionedUserIds: newlyMentioned }];
          if (assigned.added.length > 0) events.push({ change: 'assigned', changed: ['assignees'], addedAssigneeIds: assigned.added });
          if (request.closed) events.push({ change: 'closed', changed: ['state'] });
          await writeEvents(tx, access, created, events);
          return created;
        }),
      );
      return { issue };
    },

    async getIssue(request) {
      const access = accessOf(request.scope);
      const issue = await guard(async () => toIssue(db.pool, await readableIssue(db.pool, access, request.index)));
      return { issue };
    },

    async listIssues(request) {
      const access = accessOf(request.scope);
      // Gitea: a type the viewer may not read is not found; without a type, what they may read of both.
      const kinds = kindsOf(request.filter?.type ?? '').filter((isPull) => canRead(access, isPull));
      if (kinds.length === 0) throw CairnError.notFound();
      const requested = requestedFilter(request.filter, statesOf(request.filter?.state ?? ''), kinds);
      const window = rowWindow(request.page);
      const repo = { repoId: access.repository.id, ownerId: access.repository.ownerId };
      return guard(async () => {
        const conditions = { ...requested.conditions, ...(await resolveRepoNames(db.pool, repo, requested.named)) };
        const page = isPlain(conditions)
          ? await plainIssuePage(db.pool, { repoId: repo.repoId, kinds: conditions.kinds, states: conditions.states, ...window })
          : await filteredIssuePage(db.pool, { repoId: repo.repoId, conditions, ...window });
        return { issues: await toIssues(db.pool, page.rows), total: page.total };
      });
    },

    async editIssue(request) {
      const access = accessOf(request.scope);
      requireSignedIn(access);
      requireNotArchived(access);
      const fields = new Set(request.fields);
      if (fields.has('state') && request.state !== 'open' && request.state !== 'closed') {
        throw CairnError.precondition(`unknown state: ${request.state}`, { reason: 'unknown_state' });
      }
      if (fields.has('title') && request.title !== '') requireTitle(request.title);
      if (fields.has('body')) requireBodySize(request.body);
      const current = await guard(() => readableIssue(db.pool, access, request.index));
      const writer = canWrite(access, current.is_pull);
      if (current.poster_id !== access.viewer.id && !writer) throw CairnError.denied('', { reason: 'issue_edit_forbidden' });
      const assigneeIds = writer && fields.has('assignees') ? requireUserIds(request.assigneeIds) : undefined;
      const deadline = writer && fields.has('deadline') ? requireDeadline(request.deadline) : undefined;
      const mentioned = fields.has('body') ? await resolveMentions(context, request.body, access.viewer) : [];
      const issue = await guard(() =>
        db.pool.transaction(async (tx) => {
          const row = await lockedRow(tx, current);
          if (fields.has('body') && fields.has('content_version') && request.contentVersion !== row.content_version) {
            throw new CairnError(Code.ABORTED, 'the issue is already changed', { reason: 'content_version_mismatch' });
          }
          const columns: IssueColumns = {};
          const edited: string[] = [];
          // Gitea changes the title only when one is given (an empty title leaves it).
          if (fields.has('title') && request.title !== '' && request.title !== row.title) {
            columns.title = request.title;
            edited.push('title');
          }
          if (fields.has('body') && request.body !== row.body) {
            columns.body = request.body;
            edited.push('body');
          }
          if (fields.has('ref') && request.ref !== row.ref) {
            columns.ref = request.ref;
            edited.push('ref');
          }
          if (deadline !== undefined && !sameTime(deadline, row.deadline)) {
            columns.deadline = deadline;
            edited.push('deadline');
          }
          let milestoned = false;
          if (writer && fields.has('milestone') && request.milestoneId !== (row.milestone_id ?? 0)) {
            columns.milestoneId = request.milestoneId === 0 ? null : (await requireMilestone(tx, row.repo_id, request.milestoneId)).id;
            milestoned = true;
          }
          const closing = fields.has('state') ? request.state === 'closed' : row.is_closed;
          if (closing !== row.is_closed) columns.isClosed = closing;
          const assigned = assigneeIds === undefined ? { added: [], removed: [] } : await replaceAssignees(tx, row.id, assigneeIds);
          const touched = Object.keys(columns).length > 0 || assigned.added.length > 0 || assigned.removed.length > 0;
          const after = touched ? await updateIssueColumns(tx, row.id, columns) : row;
          const newlyMentioned = edited.includes('body') ? await insertMentions(tx, row.id, mentioned) : [];
          const changed = await toIssue(tx, after);
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
          await writeEvents(tx, access, changed, events);
          return changed;
        }),
      );
      return { issue };
    },

    async deleteIssue(request) {
      const access = accessOf(request.scope);
      requireSignedIn(access);
      // Gitea's reqAdmin comes before the issue is looked up.
      if (!isRepoAdmin(access)) throw CairnError.denied('user should be an owner or a collaborator with admin write of a repository');
      requireNotArchived(access);
      const current = await guard(() => readableIssue(db.pool, access, request.index));
      await guard(() =>
        db.pool.transaction(async (tx) => {
          const row = await lockedRow(tx, current);
          const issue = await toIssue(tx, row);
          await deleteIssueRow(tx, row.id);
          await writeEvents(tx, access, issue, [{ change: 'deleted' }]);
        }),
      );
      return {};
    },

    async searchIssues(request) {
      const requested = requestedFilter(request.filter, statesOf(request.filter?.state ?? ''), kindsOf(request.filter?.type ?? ''));
      const issueRepoIds = requested.conditions.kinds.includes(false) ? request.repoIds.filter((id) => id > 0) : [];
      const pullRepoIds = requested.conditions.kinds.includes(true) ? request.pullRepoIds.filter((id) => id > 0) : [];
      if (issueRepoIds.length === 0 && pullRepoIds.length === 0) return { issues: [], total: 0 };
      const window = rowWindow(request.page);
      return guard(async () => {
        const names = await resolveSearchNames(db.pool, [...new Set([...issueRepoIds, ...pullRepoIds])], requested.named);
        const conditions = { ...requested.conditions, ...names };
        const page = await searchIssuePage(db.pool, { issueRepoIds, pullRepoIds, conditions, ...window });
        return { issues: await toIssues(db.pool, page.rows), total: page.total };
      });
    },

    async setIssueLocked(request) {
      const access = accessOf(request.scope);
      requireSignedIn(access);
      requireNotArchived(access);
      const current = await guard(() => readableIssue(db.pool, access, request.index));
      if (!canWrite(access, current.is_pull)) {
        throw CairnError.denied(request.locked ? 'no permission to lock this issue' : 'no permission to unlock this issue');
      }
      await guard(() =>
        db.pool.transaction(async (tx) => {
          const row = await lockedRow(tx, current);
          // Gitea answers 204 and changes nothing when the issue already is as asked.
          if (row.is_locked === request.locked) return;
          const after = await updateIssueColumns(tx, row.id, { isLocked: request.locked });
          await insertTimelineComment(tx, {
            repoId: row.repo_id,
            issueId: row.id,
            type: request.locked ? COMMENT_TYPE_LOCK : COMMENT_TYPE_UNLOCK,
            posterId: access.viewer.id,
            body: request.locked ? request.reason : '',
          });
          await writeEvents(tx, access, await toIssue(tx, after), [{ change: request.locked ? 'locked' : 'unlocked', changed: ['locked'] }]);
        }),
      );
      return {};
    },

    async batchGetIssues(request) {
      const ids = [...new Set(request.ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
      if (ids.length > MAX_BATCH_IDS) throw CairnError.invalid(`at most ${MAX_BATCH_IDS} ids per call`);
      return guard(async () => ({ issues: await toIssues(db.pool, await findIssuesByIds(db.pool, ids)) }));
    },

    async getRepoIssueCounters(request) {
      if (request.repoIds.length > MAX_BATCH_IDS) throw CairnError.invalid(`at most ${MAX_BATCH_IDS} ids per call`);
      return guard(async () => ({ counters: await openCounters(db.pool, request.repoIds) }));
    },
  };
}
