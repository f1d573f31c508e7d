/**
 * MergePull (Gitea's routers/api/v1/repo/pull.go MergePullRequest with services/pull/check.go and merge.go): the
 * checks (domain/merge-rules.ts) on what repos says of the base branch's protection and of the head's commit
 * statuses, then git-storage's Merge in the style, as the merger, signed when the rule requires signed commits, of
 * the head those checks were made for only (domain/merge-rules.ts headToMerge; 409 `head out of date` otherwise); or,
 * for "manually-merged", the given commit checked to be contained in the base branch. The merge is recorded, the
 * issue closed, the issues its title or body names after a close or reopen keyword closed or reopened (not for a
 * manual merge; closing-references.ts), and the head branch deleted when asked (same repository, not the default branch, not protected, no
 * other open pull request from it). rpc/auto-merge.ts answers the RPC: it calls mergeNow, or schedules the merge
 * and has its scheduler merge through mergeNow later. A merge runs under the pull request's lock and writes its intent
 * before git-storage moves the base branch, so a merge whose record fails is finished later, not lost
 * (domain/merge-intent.ts).
 */
import type { DatabasePoolConnection, DatabaseTransactionConnection } from '@cairn/db';
import type { Signature } from '@cairn/proto/cairn/git/v1/git_service';
import type { MergePullRequest, MergePullResponse } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { BranchProtection, BranchProtectionMatch, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { actorOf, CairnError, Code } from '@cairn/rpc';
import {
  checkMergeable,
  changedProtectedFiles,
  grantedApprovals,
  headOutOfDate,
  headToMerge,
  isFullCommitId,
  type MergeStyle,
  mergeMessage,
  parseMergeStyle,
  type ProtectionFacts,
  refused,
  wrongCommitId,
} from '../domain/merge-rules';
import { gitTime, settleMergeIntent } from '../domain/merge-intent';
import { finishMerge } from '../domain/merge-record';
import { type Access, accessOf, canWriteCode, isRepoAdmin, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { userGitIdentity } from '../domain/git-signature';
import { readablePull } from '../domain/pull-access';
import { gitRepositoryOfRepo, internalActor, isTransient, pullHeadRef, repositoryById } from '../domain/pull-check';
import { TimelineType } from '../domain/timeline-entries';
import { findIssueByIndex, type IssueRow } from '../store/issues';
import { deleteMergeIntent, insertMergeIntent, withPullLock } from '../store/merge-intents';
import { hasOtherOpenPullFromHead, reviewFactsOf } from '../store/pull-outcomes';
import { requirePullByIssueId, toPullRequest, type PullRow } from '../store/pulls';
import { insertTimelineEntries } from '../store/timeline';
import { applyClosingReferences, planClosingReferences } from './closing-references';
import type { IssuesContext } from './context';
import { mergeAuthor } from './squash-author';

/** Statuses read per page of GetCombinedStatus (its latest status per context) and pages at most. */
const STATUS_PAGE = 50;
const STATUS_PAGES = 20;
/** Changed files read per page for the protected-files check, and pages at most. */
const FILES_PAGE = 100;
const FILES_PAGES = 50;

function codeIs(error: unknown, ...codes: Code[]): error is CairnError {
  return error instanceof CairnError && codes.includes(error.code);
}

/** The base branch's rule and whether the merger may merge (repos: code write, or the rule's merge allow list). */
export async function matchBase(context: IssuesContext, access: Access, branch: string): Promise<BranchProtectionMatch | undefined> {
  try {
    const { matches } = await context.repos.protections.matchBranchProtection({ viewer: actorOf(access.viewer), repoId: access.repository.id, branches: [branch] });
    return matches[0];
  } catch (error) {
    // No code read access: no merge either.
    if (codeIs(error, Code.NOT_FOUND, Code.PERMISSION_DENIED)) return undefined;
    throw error;
  }
}

async function statusFacts(context: IssuesContext, repoId: number, sha: string): Promise<ProtectionFacts['statuses']> {
  if (sha === '') return { statuses: [], combinedState: 'pending' };
  const statuses: { context: string; state: string }[] = [];
  let combinedState = 'pending';
  for (let page = 1; page <= STATUS_PAGES; page += 1) {
    const answer = await context.repos.statuses.getCombinedStatus({ viewer: internalActor(), repoId, sha, page: { page, limit: STATUS_PAGE } });
    combinedState = answer.state;
    statuses.push(...answer.statuses.map((status) => ({ context: status.context, state: status.state })));
    if (answer.statuses.length < STATUS_PAGE || statuses.length >= answer.totalCount) break;
  }
  return { statuses, combinedState };
}

/** The files the pull request changes (merge base → head), as far as the protected-files check needs them. */
async function changedFiles(context: IssuesContext, base: Repository, pull: PullRow): Promise<string[]> {
  const files: string[] = [];
  for (let page = 1; page <= FILES_PAGES; page += 1) {
    const answer = await context.git.merge.listChangedFiles({
      repository: gitRepositoryOfRepo(base),
      base: `refs/heads/${pull.base_branch}`,
      head: pullHeadRef(pull.index),
      page: { page, limit: FILES_PAGE },
    });
    files.push(...answer.files.map((file) => file.filename));
    if (answer.files.length < FILES_PAGE || files.length >= answer.total) break;
  }
  return files;
}

/** What the rule's requirements look at, gathered only for the requirements it has. */
async function protectionFacts(context: IssuesContext, base: Repository, pull: PullRow, rule: BranchProtection): Promise<ProtectionFacts> {
  const reviews = await reviewFactsOf(context.db.pool, pull.issue_id, pull.head_commit_id);
  const statuses = rule.enableStatusCheck ? await statusFacts(context, base.id, pull.head_commit_id) : { statuses: [], combinedState: 'success' };
  let behindBase = false;
  if (rule.blockOnOutdatedBranch) {
    const check = await context.git.merge.checkMerge({ repository: gitRepositoryOfRepo(base), baseBranch: pull.base_branch, head: pullHeadRef(pull.index) });
    behindBase = check.mergeBase !== check.baseCommitId;
  }
  const protectedFiles = rule.protectedFilePatterns.trim() === '' ? [] : changedProtectedFiles(rule, await changedFiles(context, base, pull));
  return { reviews, statuses, behindBase, changedProtectedFiles: protectedFiles };
}

/**
 * The merger's git signature, now: the name and e-mail the gateway sent, else the account's (Gitea's NewGitSig:
 * the full name or the login, the e-mail or the no-reply placeholder when it is kept private).
 */
async function signatureOf(context: IssuesContext, request: MergePullRequest, mergerId: number): Promise<{ signature: Signature; login: string }> {
  let name = request.mergerName.trim();
  let email = request.mergerEmail.trim();
  let login = name;
  if (name === '' || email === '') {
    const { users } = await context.users.batchGetUsers({ ids: [mergerId], viewer: internalActor() });
    const user = users.find((candidate) => candidate.id === mergerId);
    if (user === undefined) throw CairnError.notFound('user does not exist', { reason: 'user_not_found' });
    login = user.login;
    const identity = userGitIdentity(user, context.config.service.noReplyAddress);
    if (name === '') name = identity.name;
    if (email === '') email = identity.email;
  }
  return { signature: { name, email, when: gitTime(new Date()), timezone: '+0000' }, login };
}

/** git-storage's Merge refusals as Gitea answers them (405 signing, 409 out of date). */
function mergeFailure(error: unknown): unknown {
  if (!(error instanceof CairnError)) return error;
  if (error.code === Code.FAILED_PRECONDITION) {
    if (error.reason === 'head_out_of_date') return headOutOfDate(error);
    if (error.reason === 'base_out_of_date') return new CairnError(Code.ABORTED, 'merge push out of date', { reason: 'base_out_of_date', cause: error });
    // Gitea's ErrMergeDivergingFastForwardOnly (git's words; Gitea's API leaves it a 500): a conflict, 409 here.
    if (error.reason === 'not_fast_forward') return new CairnError(Code.ABORTED, 'Not possible to fast-forward, aborting.', { reason: 'not_fast_forward', cause: error });
    if (error.message.startsWith('wont sign')) return refused(error.message);
  }
  return error;
}

/** The head's `owner/name` for the default message: undefined for the base repository, null when the fork is gone. */
async function headRepoName(context: IssuesContext, base: Repository, pull: PullRow): Promise<string | undefined | null> {
  if (pull.head_repo_id === base.id) return undefined;
  const head = await repositoryById(context, pull.head_repo_id);
  return head === undefined ? null : `${head.ownerName}/${head.name}`;
}

/** delete_branch_after_merge (Gitea's CanDeleteBranch and HasUnmergedPullRequestsByHeadInfo); failures are logged only. */
async function deleteHeadBranch(context: IssuesContext, access: Access, pull: PullRow, mergerName: string): Promise<void> {
  const base = access.repository;
  if (pull.head_repo_id !== base.id || pull.head_branch === base.defaultBranch || !canWriteCode(access)) return;
  try {
    if (await hasOtherOpenPullFromHead(context.db.pool, pull.issue_id, pull.head_repo_id, pull.head_branch)) return;
    const { matches } = await context.repos.protections.matchBranchProtection({ viewer: actorOf(access.viewer), repoId: base.id, branches: [pull.head_branch] });
    if (matches[0]?.protection !== undefined) return;
    await context.git.refs.deleteBranch({
      repository: gitRepositoryOfRepo(base),
      name: pull.head_branch,
      push: { pusherId: access.viewer.id, repoOwnerId: base.ownerId, repoPrivate: base.private, pusherName: mergerName },
    });
    // Gitea's AddDeleteBranchComment, once the branch is gone.
    await context.db.pool.transaction((tx) =>
      insertTimelineEntries(tx, [
        { repoId: base.id, issueId: pull.issue_id, posterId: access.viewer.id, type: TimelineType.deleteBranch, oldRef: pull.head_branch },
      ]),
    );
  } catch (error) {
    context.logger.warn({ err: error, repo_id: base.id, index: pull.index, branch: pull.head_branch }, 'could not delete the head branch after merging');
  }
}

async function mergeManually(
  context: IssuesContext,
  db: DatabasePoolConnection,
  base: Repository,
  pull: PullRow,
  commitId: string,
  mergerId: number,
): Promise<PullRow> {
  if (!isFullCommitId(commitId, base.objectFormatName)) throw wrongCommitId();
  const answer = await context.git.merge.isAncestor({ repository: gitRepositoryOfRepo(base), commit: commitId, ref: `refs/heads/${pull.base_branch}` });
  if (!answer.exists || !answer.ancestor) throw wrongCommitId();
  return record(db, pull, { commitId: commitId.toLowerCase(), mergerId, style: 'manually-merged', status: 'manually_merged', repoPrivate: base.private });
}

/**
 * Records the merge under the row's lock, with what else it changes (`alongside`), and drops its intent: one
 * transaction. A concurrent merge that won answers 405 `The PR is already merged`.
 */
async function record(
  db: DatabasePoolConnection,
  pull: PullRow,
  merge: Parameters<typeof finishMerge>[2],
  alongside?: (tx: DatabaseTransactionConnection) => Promise<void>,
): Promise<PullRow> {
  return db.transaction(async (tx) => {
    const current = await requirePullByIssueId(tx, pull.issue_id, true);
    if (current.has_merged) throw refused('The PR is already merged');
    const merged = await finishMerge(tx, current, merge);
    await alongside?.(tx);
    await deleteMergeIntent(tx, pull.issue_id);
    return merged;
  });
}

/**
 * A merge request read for its caller: the pull request and its issue, the style, the merger. MergePull reads one per
 * call (rpc/auto-merge.ts then merges it now or schedules it); a scheduled merge reads one as its scheduler.
 */
export interface MergeOrder {
  request: MergePullRequest;
  access: Access;
  style: MergeStyle;
  pull: PullRow;
  issue: IssueRow;
  mergerId: number;
}

export async function readMergeOrder(context: IssuesContext, request: MergePullRequest): Promise<MergeOrder> {
  const access = accessOf(request.scope);
  const style: MergeStyle = parseMergeStyle(request.style);
  const pull = await readablePull(context.db.pool, access, request.index);
  const mergerId = requireSignedIn(access);
  requireNotArchived(access);
  const issue = await findIssueByIndex(context.db.pool, access.repository.id, pull.index);
  if (issue === undefined) throw CairnError.notFound('pull request does not exist', { reason: 'pull_not_found' });
  return { request, access, style, pull, issue, mergerId };
}

/** The commit message: the request's title and body, or Gitea's default for the style. */
export async function mergeCommitMessage(context: IssuesContext, order: MergeOrder): Promise<string> {
  const { access, pull, issue, style, request } = order;
  const base = access.repository;
  return mergeMessage(
    style,
    {
      title: issue.title,
      index: pull.index,
      headBranch: pull.head_branch,
      baseBranch: pull.base_branch,
      headRepoFullName: await headRepoName(context, base, pull),
      externalTracker: base.units.some((unit) => unit.key === 'repo.ext_issues'),
    },
    request.title,
    request.message,
  );
}

/**
 * The merge itself, for MergePull and for scheduled merges alike, under the pull request's lock (one merge or
 * mergeability check of it at a time): a merge intent left by an earlier try is settled first — when that try's
 * merge was by the same merger and is now recorded, it is this call's answer — then Gitea's general checks
 * (CheckPullMergeable with MergeCheckTypeGeneral or Manually), the merge, its record and the head branch's deletion
 * when asked.
 */
export function mergeNow(context: IssuesContext, order: MergeOrder): Promise<MergePullResponse> {
  return withPullLock(context.db.pool, order.pull.issue_id, async (db) => {
    const settled = await settleMergeIntent(context, db, await requirePullByIssueId(db, order.pull.issue_id), order.access.repository);
    if (settled.recordedFor === order.mergerId) return { pull: await toPullRequest(db, settled.pull), scheduled: false };
    return mergeLocked(context, db, { ...order, pull: settled.pull });
  });
}

async function mergeLocked(context: IssuesContext, db: DatabasePoolConnection, order: MergeOrder): Promise<MergePullResponse> {
  const { request, access, style, pull, issue, mergerId } = order;
  const base = access.repository;
  const match = pull.has_merged || pull.is_closed ? undefined : await matchBase(context, access, pull.base_branch);
  const protection = match?.protection;
  const gatherProtection = protection !== undefined && style !== 'manually-merged' && (pull.status === 'mergeable' || pull.status === 'empty');
  checkMergeable({
    style,
    settings: base,
    pull: { hasMerged: pull.has_merged, isClosed: pull.is_closed, title: issue.title, status: pull.status },
    merger: { signedIn: true, userCanMerge: match?.userCanMerge === true, isRepoAdmin: isRepoAdmin(access), forceMerge: request.forceMerge },
    protection,
    protectionFacts: gatherProtection ? await protectionFacts(context, base, pull, protection) : undefined,
  });

  let merged: PullRow;
  let pusherName = request.mergerName.trim();
  if (style === 'manually-merged') {
    merged = await mergeManually(context, db, base, pull, request.mergeCommitId.trim(), mergerId);
  } else {
    const expectedHeadCommitId = headToMerge(pull.head_commit_id, request.headCommitId);
    const { closeKeywords, reopenKeywords } = context.config.repository.pullRequest;
    // Looked up before git merges: nothing may fail between the merge and its record.
    const closing = await planClosingReferences(context, { access, title: issue.title, body: issue.body, posterId: issue.poster_id }, {
      close: closeKeywords,
      reopen: reopenKeywords,
    });
    const message = await mergeCommitMessage(context, order);
    const { signature, login } = await signatureOf(context, request, mergerId);
    pusherName = login;
    const authored = await mergeAuthor(context, { base, pull, posterId: issue.poster_id, style, merger: signature, message });
    const approved = protection !== undefined && grantedApprovals(protection, await reviewFactsOf(db, pull.issue_id, pull.head_commit_id)) >= 1;
    const repository = gitRepositoryOfRepo(base);
    // The intent, committed before git moves anything: if the record below never happens, it tells what to finish.
    const { branch } = await context.git.refs.getBranch({ repository, name: pull.base_branch });
    await db.transaction((tx) =>
      insertMergeIntent(tx, {
        issueId: pull.issue_id,
        baseCommitId: branch?.commit?.sha ?? '',
        headCommitId: expectedHeadCommitId,
        style,
        mergerId,
        committer: { name: signature.name, email: signature.email, when: signature.when ?? new Date() },
        closing,
      }),
    );
    let mergeCommitId: string;
    try {
      ({ mergeCommitId } = await context.git.merge.merge({
        repository,
        baseBranch: pull.base_branch,
        head: pullHeadRef(pull.index),
        style,
        expectedHeadCommitId,
        message: authored.message,
        author: authored.author,
        committer: signature,
        push: { pusherId: mergerId, repoOwnerId: base.ownerId, repoPrivate: base.private, pusherName: login },
        // Gitea's SignMerge runs for every merge; the protection's require_signed_commits makes a refusal fatal.
        sign: true,
        requireSigned: protection?.requireSignedCommits === true,
        // MERGES' "approved": a protection rule and at least one granted approval under it.
        approved,
      }, { deadlineMs: context.config.rpc.gitWriteDeadlineMs }));
    } catch (error) {
      // A refusal moved nothing; after a timeout or an outage git may have merged, which the intent settles later.
      if (!isTransient(error)) await deleteMergeIntent(db, pull.issue_id);
      throw mergeFailure(error);
    }
    merged = await record(db, pull, { commitId: mergeCommitId, mergerId, style, repoPrivate: base.private }, (tx) =>
      applyClosingReferences(tx, closing, { mergerId, posterId: issue.poster_id }),
    );
  }
  if (request.deleteBranchAfterMerge) await deleteHeadBranch(context, access, merged, pusherName);
  return { pull: await toPullRequest(db, merged), scheduled: false };
}
