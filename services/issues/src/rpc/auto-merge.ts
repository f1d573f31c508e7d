/**
 * MergePull's entry and scheduled auto-merge ("merge when checks succeed"; Gitea's routers/api/v1/repo/pull.go
 * MergePullRequest and CancelScheduledAutoMerge, services/automerge, models/pull/automerge.go):
 * - MergePull merges now (rpc/pull-merge.ts mergeNow), or with `merge_when_checks_succeed` schedules: the checks of
 *   Gitea's MergeCheckTypeAuto (merged, closed, permission, work in progress, mergeability and the style refuse as
 *   for a merge; the base branch's protection requirements do not), then one schedule per pull request (ALREADY_EXISTS
 *   otherwise, Gitea's 409) with the commit message decided now, then a first try at once (Gitea queues one).
 * - A try (tryAutoMerge; the consumer in events/auto-merge-consumer.ts calls it on a successful commit status of the
 *   head, an approval or a dismissal) is Gitea's handlePullRequestAutoMerge: the head must still be the commit the
 *   trigger named, then the scheduler merges through mergeNow, the API's own path, with its general checks and no
 *   force. Gitea's IsPullCommitStatusPass decides first, and it is those checks' first one: without a rule on the
 *   base branch, or with the rule's status checks off, statuses do not hold the merge back; with them on, the latest
 *   status of each required context (every context when the rule lists none) must combine to success, a head
 *   without any status being pending (domain/merge-rules.ts requiredContextsState). Required approvals and the other
 *   requirements must be met too. A refused try leaves the schedule for the next trigger; merging (closing) drops it.
 * - CancelAutoMerge: the scheduler or a repository admin (else PERMISSION_DENIED with Gitea's message).
 * Signing is git-storage's answer when the merge runs, so a required signature that cannot be made refuses the try,
 * not the schedule (Gitea asks before scheduling). Scheduling and cancelling write Gitea's pull_scheduled_merge and
 * pull_cancel_scheduled_merge timeline entries.
 */
import { MergePullRequest, type CancelAutoMergeRequest, type CancelAutoMergeResponse, type MergePullResponse } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { checkMergeable, refused, Refusal } from '../domain/merge-rules';
import { accessOf, isRepoAdmin, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { readablePull } from '../domain/pull-access';
import { internalActor } from '../domain/pull-check';
import { TimelineType } from '../domain/timeline-entries';
import { insertTimelineEntries } from '../store/timeline';
import { type AutoMergeRow, type AutoMergeStyle, claimAutoMerge, deleteAutoMerge, findAutoMerge, insertAutoMerge, releaseAutoMerge } from '../store/auto-merges';
import { requirePullByIssueId, toPullRequest, type PullRow } from '../store/pulls';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { type MergeOrder, matchBase, mergeCommitMessage, mergeNow, readMergeOrder } from './pull-merge';

/** A try's claim on a schedule older than this belongs to a try that died; the next one takes it over. */
const CLAIM_STALE_MS = 5 * 60_000;

export function mergePull(context: IssuesContext, request: MergePullRequest): Promise<MergePullResponse> {
  return guard(async () => {
    const order = await readMergeOrder(context, request);
    // Gitea marks a manual merge at once, merge_when_checks_succeed or not.
    if (!request.mergeWhenChecksSucceed || order.style === 'manually-merged') return mergeNow(context, order);
    return scheduleAutoMerge(context, order, order.style);
  });
}

/** Gitea's CheckPullMergeable with MergeCheckTypeAuto: everything but the branch protection's requirements. */
async function checkSchedulable(context: IssuesContext, order: MergeOrder): Promise<void> {
  const { access, pull, issue, style } = order;
  const match = pull.has_merged || pull.is_closed ? undefined : await matchBase(context, access, pull.base_branch);
  checkMergeable({
    style,
    settings: access.repository,
    pull: { hasMerged: pull.has_merged, isClosed: pull.is_closed, title: issue.title, status: pull.status },
    merger: { signedIn: true, userCanMerge: match?.userCanMerge === true, isRepoAdmin: isRepoAdmin(access), forceMerge: false },
    protection: undefined,
    protectionFacts: undefined,
  });
}

async function scheduleAutoMerge(context: IssuesContext, order: MergeOrder, style: AutoMergeStyle): Promise<MergePullResponse> {
  await checkSchedulable(context, order);
  const message = await mergeCommitMessage(context, order);
  const { pull, mergerId, request } = order;
  await context.db.pool.transaction(async (tx) => {
    // Under the row's lock: a merge or close that committed meanwhile refuses as the checks above would have.
    const current = await requirePullByIssueId(tx, pull.issue_id, true);
    if (current.has_merged) throw refused(Refusal.alreadyMerged);
    if (current.is_closed) throw CairnError.notFound('pull request is closed', { reason: 'pull_closed' });
    const inserted = await insertAutoMerge(tx, { issueId: pull.issue_id, doerId: mergerId, style, message, deleteBranchAfterMerge: request.deleteBranchAfterMerge });
    if (!inserted) {
      throw CairnError.exists(`pull request is already scheduled to auto merge when checks succeed [pull_id: ${pull.issue_id}]`, {
        reason: 'auto_merge_scheduled',
      });
    }
    await insertTimelineEntries(tx, [{ repoId: pull.repo_id, issueId: pull.issue_id, posterId: mergerId, type: TimelineType.scheduledMerge }]);
  });
  context.logger.info({ repo_id: pull.repo_id, index: pull.index, doer_id: mergerId, style }, 'pull request scheduled to merge when checks succeed');
  await tryAutoMerge(context, pull.issue_id, pull.head_commit_id).catch((error: unknown) => {
    context.logger.warn({ err: error, repo_id: pull.repo_id, index: pull.index }, 'the first try of a scheduled merge failed');
  });
  return { pull: await toPullRequest(context.db.pool, await requirePullByIssueId(context.db.pool, pull.issue_id)), scheduled: true };
}

export function cancelAutoMerge(context: IssuesContext, request: CancelAutoMergeRequest): Promise<CancelAutoMergeResponse> {
  return guard(async () => {
    const access = accessOf(request.scope);
    const pull = await readablePull(context.db.pool, access, request.index);
    const viewerId = requireSignedIn(access);
    requireNotArchived(access);
    const scheduled = await findAutoMerge(context.db.pool, pull.issue_id);
    if (scheduled === undefined) throw CairnError.notFound('no scheduled auto merge', { reason: 'auto_merge_not_found' });
    if (scheduled.doer_id !== viewerId && !isRepoAdmin(access)) {
      throw CairnError.denied('user has no permission to cancel the scheduled auto merge', { reason: 'auto_merge_cancel_denied' });
    }
    await context.db.pool.transaction(async (tx) => {
      if (!(await deleteAutoMerge(tx, pull.issue_id))) throw CairnError.notFound('no scheduled auto merge', { reason: 'auto_merge_not_found' });
      // Gitea's RemoveScheduledAutoMerge entry (a merge that uses the schedule removes it without one).
      await insertTimelineEntries(tx, [{ repoId: pull.repo_id, issueId: pull.issue_id, posterId: viewerId, type: TimelineType.cancelScheduledMerge }]);
    });
    return {};
  });
}

/** What a try did. */
export type AutoMergeOutcome = 'merged' | 'waiting' | 'none';

/** Refusals that leave the schedule for the next trigger (anything else is logged by the caller or retried). */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof CairnError &&
    [Code.FAILED_PRECONDITION, Code.NOT_FOUND, Code.PERMISSION_DENIED, Code.ABORTED, Code.INVALID_ARGUMENT].includes(error.code)
  );
}

/**
 * One try of pull request `issueId`'s schedule, when its head is still `headCommitId` (the current head when
 * undefined): 'merged', 'waiting' (refused: the schedule stays) or 'none' (no schedule, or another head).
 * UNAVAILABLE while another try holds the schedule, so the consumer's event comes back after it.
 */
export async function tryAutoMerge(context: IssuesContext, issueId: number, headCommitId?: string): Promise<AutoMergeOutcome> {
  const claimed = await claimAutoMerge(context.db.pool, issueId, CLAIM_STALE_MS);
  if (claimed === undefined) return 'none';
  if (claimed === 'busy') throw CairnError.unavailable('another try of this scheduled merge is running', { reason: 'auto_merge_busy' });
  try {
    const pull = await requirePullByIssueId(context.db.pool, issueId);
    if (pull.has_merged || pull.is_closed) return 'none';
    if (headCommitId !== undefined && pull.head_commit_id !== headCommitId) return 'none';
    const request = await schedulerRequest(context, pull, claimed);
    if (request === undefined) return 'waiting';
    try {
      await mergeNow(context, await readMergeOrder(context, request));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      context.logger.info({ repo_id: pull.repo_id, index: pull.index, reason: error instanceof Error ? error.message : '' }, 'scheduled merge not ready');
      return 'waiting';
    }
    context.logger.info({ repo_id: pull.repo_id, index: pull.index, doer_id: claimed.doer_id }, 'scheduled merge done');
    return 'merged';
  } finally {
    await releaseAutoMerge(context.db.pool, issueId);
  }
}

/**
 * The MergePull request the scheduler would send now: their repository permission as repos decides it, the stored
 * style, message and branch deletion, the head the try checked. Undefined when the scheduler is gone or lost read
 * access (Gitea logs and keeps the schedule).
 */
async function schedulerRequest(context: IssuesContext, pull: PullRow, scheduled: AutoMergeRow): Promise<MergePullRequest | undefined> {
  const { users } = await context.users.batchGetUsers({ ids: [scheduled.doer_id], viewer: internalActor() });
  const doer = users.find((user) => user.id === scheduled.doer_id);
  if (doer === undefined) return undefined;
  const viewer = { userId: doer.id, isAdmin: doer.isAdmin, isRestricted: doer.restricted };
  let repository: RepositoryWithPermission | undefined;
  try {
    ({ repository } = await context.repos.repos.getRepository({ viewer, id: pull.repo_id, owner: '', name: '' }));
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
  if (repository === undefined) return undefined;
  return MergePullRequest.fromPartial({
    scope: { viewer, repository },
    index: pull.index,
    style: scheduled.merge_style,
    // The whole message was decided when scheduling: as the title, it is used as it is.
    title: scheduled.message,
    headCommitId: pull.head_commit_id,
    deleteBranchAfterMerge: scheduled.delete_branch_after_merge,
  });
}
