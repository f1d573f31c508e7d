/**
 * PullServiceService (proto/cairn/issues/v1/pulls_service.proto): pull requests as Gitea's routers/api/v1/repo/
 * pull.go decides them — creating, reading, listing and editing here; updating the head (rpc/pull-update.ts),
 * merging (rpc/pull-merge.ts) and the mergeability check (domain/pull-check.ts) are the merge area's, which
 * UpdatePull, MergePull and CheckPull call.
 *
 * - Reading needs the pulls unit readable: else NOT_FOUND (an issue's number is no pull request either).
 * - Creating needs a signed-in reader of pull requests and of the code of both repositories; the issue half is
 *   opened exactly as CreateIssue opens an issue (rpc/issue-changes.ts: milestone, labels, assignees and deadline
 *   for writers only). Head equal to base in one repository is INVALID_ARGUMENT, a missing branch NOT_FOUND, an
 *   open pull request for the same targets ALREADY_EXISTS. Reviewers (users) and teams of an organization's
 *   repository (by name) are checked as RequestReviewers checks them and asked in the creating transaction. A new
 *   pull request is "checking" and is checked right after it is stored (when git-storage cannot answer now it stays
 *   "checking" for the next check).
 * - Editing: the issue half as EditIssue (a body sent with a stale content_version is ABORTED); the base branch (must exist; the pull request goes back to "checking");
 *   allow_maintainer_edit by the poster only; a merged pull request keeps its state (FAILED_PRECONDITION). The
 *   consumer of cairn.pull_request.edited (events/git-consumer.ts) re-checks a pull request given a new base.
 */
import type { PullRequest, PullServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import { rowWindow } from '../domain/issue-filters';
import { readablePull } from '../domain/pull-access';
import { headAccessOf, requireBranch, requireBranchName } from '../domain/pull-targets';
import { checkPull } from '../domain/pull-check';
import { type Access, accessOf, canReadCode, requireRead, requireSignedIn } from '../domain/permissions';
import { TimelineType } from '../domain/timeline-entries';
import { type PullChange, enqueuePullEvent } from '../events/pull-events';
import {
  findNewestPullByBranches,
  findOpenPullForTargets,
  insertPull,
  type PullRow,
  listPulls,
  requirePullByIssueId,
  toPullRequest,
  toPullRequests,
  updatePullColumns,
} from '../store/pulls';
import { findIssuesByIds } from '../store/issues';
import { insertTimelineEntries } from '../store/timeline';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { applyEdit, checkEdit, checkEditRequest, checkOpening, lockedRow, openIssue, writeEvents } from './issue-changes';
import { createPinnedPullService } from './pin-service';
import { cancelAutoMerge, mergePull } from './auto-merge';
import { updatePull } from './pull-update';
import { checkReviewers, checkTeams, requestReviews, requestTeamReviews } from './review-requests';


function statesOfList(state: string): boolean[] {
  if (state === 'closed') return [true];
  if (state === 'all') return [false, true];
  return [false];
}

export function createPullService(context: IssuesContext): AsyncServiceOf<typeof PullServiceService> {
  const { db } = context;

  /** Checks a pull request just stored; when that fails it stays "checking" for a later check (a push, CheckPull). */
  async function checkNow(access: Access, stored: { row: PullRow; created: PullRequest }): Promise<PullRequest> {
    try {
      const checked = await checkPull(context, stored.row, { base: access.repository, actorId: access.viewer.id });
      return await toPullRequest(db.pool, checked);
    } catch (error) {
      context.logger.warn({ err: error, repo_id: access.repository.id, index: stored.row.index }, 'pull request not checked');
      return stored.created;
    }
  }

  return {
    async createPull(request) {
      const access = accessOf(request.scope);
      const checked = await checkOpening(context, access, {
        isPull: true,
        title: request.title,
        body: request.body,
        ref: '',
        closed: false,
        assigneeIds: request.assigneeIds,
        labelIds: request.labelIds,
        milestoneId: request.milestoneId,
        deadline: request.deadline,
      });
      // Gitea's parseCompareInfo: the base repository's code must be readable too.
      if (!canReadCode(access)) throw CairnError.notFound();
      const headAccess = headAccessOf(access, request.head);
      const baseBranch = requireBranchName(request.baseBranch, 'base');
      const headBranch = requireBranchName(request.headBranch, 'head');
      if (headAccess.repository.id === access.repository.id && headBranch === baseBranch) {
        throw CairnError.invalid('Invalid PullRequest: There are no changes between the head and the base', { reason: 'branches_equal' });
      }
      // Both at once; when both are missing the base's error is the one answered, as when checked in turn.
      const branches = await Promise.allSettled([requireBranch(context, access, baseBranch), requireBranch(context, headAccess, headBranch)]);
      for (const branch of branches) if (branch.status === 'rejected') throw branch.reason;
      // The new pull request's poster is the viewer (its issue id is only needed to withdraw requests). Reviewers and
      // teams are checked before anything is stored (Gitea creates the pull request first and answers 500 then).
      const newPull = { issue_id: 0, poster_id: checked.posterId, base_branch: baseBranch };
      const reviewers = await checkReviewers(context, access, newPull, request.reviewerIds, true);
      const teams = await checkTeams(context, access, newPull, request.teamNames, true);
      const stored = await guard(() =>
        db.pool.transaction(async (tx) => {
          // openIssue takes the repository's numbering lock first, so two creations for the same targets are
          // checked one after the other.
          const opened = await openIssue(tx, access, checked);
          const target = { repoId: access.repository.id, headRepoId: headAccess.repository.id, headBranch, baseBranch };
          const existing = await findOpenPullForTargets(tx, target);
          if (existing !== undefined) {
            throw new CairnError(
              Code.ALREADY_EXISTS,
              `pull request already exists for these targets [id: ${existing.issue_id}, issue_id: ${existing.issue_id}, head_repo_id: ${target.headRepoId}, ` +
                `base_repo_id: ${target.repoId}, head_branch: ${headBranch}, base_branch: ${baseBranch}]`,
              { reason: 'pull_exists' },
            );
          }
          let row = await insertPull(tx, { issueId: opened.row.id, headRepoId: target.headRepoId, headBranch, baseBranch });
          await requestReviews(tx, row, reviewers, access.viewer.id);
          const teamReviews = await requestTeamReviews(tx, row, teams, access.viewer.id);
          row = await requirePullByIssueId(tx, row.issue_id);
          const created = await toPullRequest(tx, row);
          await writeEvents(tx, access, opened.issue, opened.events);
          const facts = { actorId: access.viewer.id, pull: created, repoPrivate: access.repository.private };
          await enqueuePullEvent(tx, 'opened', facts);
          if (reviewers.length > 0 || teamReviews.length > 0) {
            await enqueuePullEvent(tx, 'review_requested', {
              ...facts,
              reviewerIds: reviewers.map((reviewer) => reviewer.id),
              reviewerTeamIds: teamReviews.map((review) => review.reviewer_team_id),
            });
          }
          return { row, created };
        }),
      );
      return { pull: await checkNow(access, stored) };
    },

    async getPull(request) {
      const access = accessOf(request.scope);
      const pull = await guard(async () => toPullRequest(db.pool, await readablePull(db.pool, access, request.index)));
      return { pull };
    },

    async getPullByBranches(request) {
      const access = accessOf(request.scope);
      requireRead(access, true);
      const pull = await guard(async () => {
        const head = { repoId: request.headRepoId > 0 ? request.headRepoId : access.repository.id, branch: request.headBranch };
        const row = await findNewestPullByBranches(db.pool, access.repository.id, request.baseBranch, head);
        if (row === undefined) throw CairnError.notFound('pull request does not exist', { reason: 'pull_not_found' });
        return toPullRequest(db.pool, row);
      });
      return { pull };
    },

    async listPulls(request) {
      const access = accessOf(request.scope);
      requireRead(access, true);
      const window = rowWindow(request.page);
      return guard(async () => {
        const page = await listPulls(db.pool, {
          repoId: access.repository.id,
          states: statesOfList(request.state),
          sort: request.sort,
          milestoneId: request.milestoneId,
          labelIds: request.labelIds,
          posterId: request.posterId,
          baseBranch: request.baseBranch,
          ...window,
        });
        return { pulls: await toPullRequests(db.pool, page.rows), total: page.total };
      });
    },

    async editPull(request) {
      const access = accessOf(request.scope);
      // content_version guards the body as for issues (applyEdit: ABORTED when the body changed since).
      const edit = { ...request, ref: '', fields: new Set(request.fields.filter((field) => field !== 'ref')) };
      checkEditRequest(access, edit);
      const baseBranch = edit.fields.has('base') && request.baseBranch !== '' ? requireBranchName(request.baseBranch, 'base') : undefined;
      const current = await guard(() => readablePull(db.pool, access, request.index));
      const [issueRow] = await guard(() => findIssuesByIds(db.pool, [current.issue_id]));
      if (issueRow === undefined) throw CairnError.notFound('pull request does not exist', { reason: 'pull_not_found' });
      const checked = await checkEdit(context, access, issueRow, edit);
      if (edit.fields.has('state') && current.has_merged) {
        throw CairnError.precondition('cannot change state of this pull request, it was already merged', { reason: 'pull_merged' });
      }
      if (edit.fields.has('allow_maintainer_edit') && access.viewer.id !== current.poster_id) {
        throw CairnError.denied('SetAllowEdits: user has no permission for this action', { reason: 'not_poster' });
      }
      const changeBase = baseBranch !== undefined && !current.has_merged && baseBranch !== current.base_branch;
      if (changeBase) {
        if (current.head_repo_id === access.repository.id && current.head_branch === baseBranch) {
          throw CairnError.invalid('Invalid PullRequest: There are no changes between the head and the base', { reason: 'branches_equal' });
        }
        await requireBranch(context, access, baseBranch);
      }
      const stored = await guard(() =>
        db.pool.transaction(async (tx) => {
          const locked = await lockedRow(tx, issueRow);
          const before = await requirePullByIssueId(tx, current.issue_id, true);
          if (changeBase) {
            // Gitea changes the state first: a pull request closed by this very edit cannot move, a reopened one can.
            const closedAfter = edit.fields.has('state') ? request.state === 'closed' : locked.is_closed;
            if (closedAfter) throw CairnError.invalid('issue is closed', { reason: 'pull_closed' });
            const clash = await findOpenPullForTargets(tx, { repoId: before.repo_id, headRepoId: before.head_repo_id, headBranch: before.head_branch, baseBranch });
            if (clash !== undefined) {
              throw new CairnError(Code.ALREADY_EXISTS, `pull request already exists for these targets [id: ${clash.issue_id}]`, { reason: 'pull_exists' });
            }
          }
          const edited = await applyEdit(tx, locked, checked, access.viewer.id);
          const changed: string[] = [];
          const columns: Parameters<typeof updatePullColumns>[2] = {};
          if (changeBase) {
            columns.baseBranch = baseBranch;
            columns.status = 'checking';
            changed.push('base');
            // Gitea's ChangeTargetBranch entry.
            await insertTimelineEntries(tx, [
              { repoId: before.repo_id, issueId: before.issue_id, posterId: access.viewer.id, type: TimelineType.changeTargetBranch, oldRef: before.base_branch, newRef: baseBranch },
            ]);
          }
          if (edit.fields.has('allow_maintainer_edit') && request.allowMaintainerEdit !== before.allow_maintainer_edit) {
            columns.allowMaintainerEdit = request.allowMaintainerEdit;
            changed.push('allow_maintainer_edit');
          }
          const after = await updatePullColumns(tx, before.issue_id, columns);
          const result = await toPullRequest(tx, after);
          await writeEvents(tx, access, edited.issue, edited.events);
          const facts = { actorId: access.viewer.id, pull: result, repoPrivate: access.repository.private };
          const issueEdits = edited.events.flatMap((event) => (event.change === 'edited' ? (event.changed ?? []) : []));
          if (issueEdits.length > 0 || changed.length > 0) await enqueuePullEvent(tx, 'edited', { ...facts, changed: [...issueEdits, ...changed] });
          const stateChange = edited.events.find((event) => event.change === 'closed' || event.change === 'reopened');
          if (stateChange !== undefined) await enqueuePullEvent(tx, stateChange.change as PullChange, { ...facts, changed: ['state'] });
          return { row: after, created: result };
        }),
      );
      // A new base leaves it "checking": the pull-request events consumer (events/git-consumer.ts) re-checks it.
      return { pull: stored.created };
    },

    mergePull: (request) => mergePull(context, request),
    cancelAutoMerge: (request) => cancelAutoMerge(context, request),

    updatePull: (request) => updatePull(context, request),

    // ListPinnedPulls (pinning itself is IssueService's).
    ...createPinnedPullService(context),

    async checkPull(request) {
      const access = accessOf(request.scope);
      requireSignedIn(access);
      const current = await guard(() => readablePull(db.pool, access, request.index));
      const checked = await checkPull(context, current, { base: access.repository, actorId: access.viewer.id });
      return { pull: await guard(() => toPullRequest(db.pool, checked)) };
    },
  };
}
