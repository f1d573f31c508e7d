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
 * - Deleting: repository admins and site admins. Locking: issue writers. Pinning: rpc/pin-service.ts.
 * - Every change writes its events (events/issue-events.ts) in its transaction; archived repositories take none.
 */
import type { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { readableIssue } from '../domain/issue-access';
import { isPlain, kindsOf, requestedFilter, rowWindow, statesOf } from '../domain/issue-filters';
import { accessOf, canRead, canWrite, isRepoAdmin, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { resolveRepoNames, resolveSearchNames } from '../store/issue-filter';
import { filteredIssueList, plainIssueList } from '../store/issue-list';
import { searchIssuePage } from '../store/issue-search';
import { COMMENT_TYPE_LOCK, COMMENT_TYPE_UNLOCK, deleteIssueRow, insertTimelineComment, updateIssueColumns } from '../store/issue-writes';
import { findIssuesByIds, toIssue, toIssues } from '../store/issues';
import { findIssueSubjects } from '../store/comments';
import { openCounters } from '../store/repo-counters';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { reviewRequestedTeams } from './review-requests';
import { createPinService } from './pin-service';
import { applyEdit, checkEdit, checkEditRequest, checkOpening, lockedRow, openIssue, writeEvents } from './issue-changes';

/** BatchGetIssues answers at most this many ids per call. */
export const MAX_BATCH_IDS = 1000;

/** A batch's ids: positive, each once, at most MAX_BATCH_IDS. */
function batchIds(requested: readonly number[]): number[] {
  const ids = [...new Set(requested.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (ids.length > MAX_BATCH_IDS) throw CairnError.invalid(`at most ${MAX_BATCH_IDS} ids per call`);
  return ids;
}

export function createIssueService(context: IssuesContext): AsyncServiceOf<typeof IssueServiceService> {
  const { db } = context;
  return {
    async createIssue(request) {
      const access = accessOf(request.scope);
      const checked = await checkOpening(context, access, { ...request, isPull: false });
      const issue = await guard(() =>
        db.pool.transaction(async (tx) => {
          const opened = await openIssue(tx, access, checked);
          await writeEvents(tx, access, opened.issue, opened.events);
          return opened.issue;
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
        const conditions = {
          ...requested.conditions,
          ...(await resolveRepoNames(db.pool, repo, requested.named)),
          ...(await reviewRequestedTeams(context, requested.conditions.reviewRequestedId)),
        };
        return isPlain(conditions)
          ? plainIssueList(db.pool, { repoId: repo.repoId, kinds: conditions.kinds, states: conditions.states, ...window })
          : filteredIssueList(db.pool, { repoId: repo.repoId, conditions, ...window });
      });
    },

    async editIssue(request) {
      const access = accessOf(request.scope);
      const edit = { ...request, fields: new Set(request.fields) };
      checkEditRequest(access, edit);
      const current = await guard(() => readableIssue(db.pool, access, request.index));
      const checked = await checkEdit(context, access, current, edit);
      const issue = await guard(() =>
        db.pool.transaction(async (tx) => {
          const edited = await applyEdit(tx, await lockedRow(tx, current), checked, access.viewer.id);
          await writeEvents(tx, access, edited.issue, edited.events);
          return edited.issue;
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
        const conditions = { ...requested.conditions, ...names, ...(await reviewRequestedTeams(context, requested.conditions.reviewRequestedId)) };
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
      const ids = batchIds(request.ids);
      return guard(async () => ({ issues: await toIssues(db.pool, await findIssuesByIds(db.pool, ids)) }));
    },

    async batchGetIssueSubjects(request) {
      const ids = batchIds(request.ids);
      return guard(async () => ({ subjects: await findIssueSubjects(db.pool, ids) }));
    },

    async getRepoIssueCounters(request) {
      if (request.repoIds.length > MAX_BATCH_IDS) throw CairnError.invalid(`at most ${MAX_BATCH_IDS} ids per call`);
      return guard(async () => ({ counters: await openCounters(db.pool, request.repoIds) }));
    },

    // PinIssue, UnpinIssue, MoveIssuePin, ListPinnedIssues, GetNewPinsAllowed.
    ...createPinService(context),
  };
}
