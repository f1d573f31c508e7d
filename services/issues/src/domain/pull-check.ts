/**
 * A pull request's mergeability check (Gitea's services/pull/check.go testPullRequest / manuallyMerged): git-storage
 * copies the head branch (of the base repository or of a fork) to refs/pull/<index>/head of the base repository,
 * then says what merging it into the base branch would do; the row keeps the status ("mergeable", "conflict",
 * "empty", "ancestor"; "error" when git-storage cannot answer), the merge base, the head and the conflicting files.
 * A head that moved publishes cairn.pull_request.synchronized (and, under `dismiss_stale_approvals`, dismisses the
 * approvals); a changed status publishes cairn.pull_request.mergeability_changed. With the repository's
 * `autodetect_manual_merge`, a head the base branch already contains marks the pull request manually merged, as
 * Gitea's manuallyMerged records it: by the commit that merged it (git-storage's FindMergeCommit), merged at that
 * commit's author time, by the user owning its author e-mail, else by the repository's owner.
 * The new-pull-request path, the pushes consumer and the CheckPull RPC all run this.
 */
import type { DatabasePoolConnection } from '@cairn/db';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { CheckMergeResponse, Commit, Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import { enqueuePullEvent } from '../events/pull-events';
import type { IssuesContext } from '../rpc/context';
import { dismissStaleApprovals } from '../store/pull-outcomes';
import { requirePullByIssueId, toPullRequest, updatePullStatus, type PullRow, type PullStatus } from '../store/pulls';
import { insertTimelineEntries } from '../store/timeline';
import { listMergeIntentIssueIds, withPullLock } from '../store/merge-intents';
import { settleMergeIntent } from './merge-intent';
import { finishMerge } from './merge-record';
import { TimelineType, pushBody } from './timeline-entries';

/** A site admin's view for service-internal lookups (repositories, protections): they decide nothing for a viewer. */
export function internalActor(asId = 1): Actor {
  return { userId: Math.max(asId, 1), isAdmin: true, isRestricted: false };
}

export function pullHeadRef(index: number): string {
  return `refs/pull/${index}/head`;
}

export function gitRepositoryOfRepo(repository: Repository): GitRepository {
  return { storage: repository.storage, repoId: repository.id };
}

/** git-storage or repos not answering now: the caller retries (the consumer's redelivery) rather than record "error". */
export function isTransient(error: unknown): boolean {
  return error instanceof CairnError && (error.code === Code.UNAVAILABLE || error.code === Code.DEADLINE_EXCEEDED || error.code === Code.CANCELLED);
}

function isNotFound(error: unknown): boolean {
  return error instanceof CairnError && error.code === Code.NOT_FOUND;
}

/** A repository by id as the service sees it; undefined when it is gone. */
export async function repositoryById(context: Pick<IssuesContext, 'repos'>, id: number): Promise<Repository | undefined> {
  try {
    const { repository } = await context.repos.repos.getRepository({ viewer: internalActor(), id, owner: '', name: '' });
    return repository?.repository;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export interface CheckPullOptions {
  /** The base repository when the caller has it (the request's scope); looked up otherwise. */
  base?: Repository;
  /** Who caused the check, for the events it publishes (0: the repository's owner). */
  actorId?: number;
}

interface CheckOutcome {
  status: PullStatus;
  mergeBase?: string;
  headCommitId?: string;
  conflictedFiles: readonly string[];
}

const CHECK_STATUSES: ReadonlySet<string> = new Set(['mergeable', 'conflict', 'empty', 'ancestor']);

/** Syncs the head and asks git-storage; a failure becomes "error" (transient ones are thrown). */
async function runCheck(context: IssuesContext, pull: PullRow, base: Repository): Promise<CheckOutcome> {
  const baseGit = gitRepositoryOfRepo(base);
  try {
    const headRepo = pull.head_repo_id === base.id ? base : await repositoryById(context, pull.head_repo_id);
    if (headRepo !== undefined) {
      try {
        await context.git.merge.syncPullHead({ base: baseGit, head: gitRepositoryOfRepo(headRepo), headBranch: pull.head_branch, index: pull.index });
      } catch (error) {
        // A deleted head branch (or fork) leaves the last copied head in place, as Gitea keeps refs/pull/<index>/head.
        if (!isNotFound(error)) throw error;
      }
    }
    const answer: CheckMergeResponse = await context.git.merge.checkMerge({ repository: baseGit, baseBranch: pull.base_branch, head: pullHeadRef(pull.index) });
    if (!CHECK_STATUSES.has(answer.status)) throw CairnError.internal(`git-storage answered merge status ${JSON.stringify(answer.status)}`);
    return {
      status: answer.status as PullStatus,
      mergeBase: answer.mergeBase,
      headCommitId: answer.headCommitId,
      conflictedFiles: answer.status === 'conflict' ? answer.conflictedFiles : [],
    };
  } catch (error) {
    if (isTransient(error)) throw error;
    context.logger.warn({ err: error, repo_id: base.id, index: pull.index }, 'pull request check failed');
    return { status: 'error', conflictedFiles: [] };
  }
}

function sameFiles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((file, i) => file === b[i]);
}

/** Whether the base branch's rule dismisses stale approvals (asked only when the head moved). */
async function dismissesStaleApprovals(context: IssuesContext, base: Repository, branch: string): Promise<boolean> {
  try {
    const { matches } = await context.repos.protections.matchBranchProtection({ viewer: internalActor(), repoId: base.id, branches: [branch] });
    return matches[0]?.protection?.dismissStaleApprovals === true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** The user owning `email` (accounts' GetUserByEmail); undefined for none, or when accounts refuses (Gitea ignores that). */
async function userIdByEmail(context: IssuesContext, email: string): Promise<number | undefined> {
  if (email === '') return undefined;
  try {
    const { users } = await context.users.batchGetUsersByEmail({ emails: [email], viewer: internalActor() });
    return users.find((found) => found.user !== undefined)?.user?.id;
  } catch (error) {
    if (isTransient(error)) throw error;
    context.logger.warn({ err: error }, 'looking up the user of a merge commit failed');
    return undefined;
  }
}

/** The merge that brought a detected manual merge's head into the base branch (Gitea's getMergeCommit). */
interface DetectedMerge {
  commitId: string;
  mergerId: number;
  mergedAt: Date | undefined;
}

/**
 * Gitea's manuallyMerged: the first merge commit from the head to the base branch (the head itself after a
 * fast-forward), merged by the user whose e-mail is that commit's author e-mail, else by the repository's owner, at
 * the commit's author time. Undefined when git-storage no longer finds the head in the branch.
 */
async function findDetectedMerge(context: IssuesContext, base: Repository, pull: PullRow, headCommitId: string): Promise<DetectedMerge | undefined> {
  let commit: Commit | undefined;
  try {
    const answer = await context.git.merge.findMergeCommit({ repository: gitRepositoryOfRepo(base), baseBranch: pull.base_branch, head: headCommitId });
    commit = answer.found ? answer.commit : undefined;
  } catch (error) {
    if (isTransient(error)) throw error;
    context.logger.warn({ err: error, repo_id: base.id, index: pull.index }, 'finding the merge commit of a manual merge failed');
  }
  if (commit === undefined) return undefined;
  const email = commit.author?.email.trim() ?? '';
  return { commitId: commit.sha, mergerId: (await userIdByEmail(context, email)) ?? base.ownerId, mergedAt: commit.author?.when };
}

/**
 * A push's pull_push content (Gitea's CreatePushPullComment): the commits from the old head to the new one, oldest
 * first, or a force push's old and new head. Undefined when git-storage cannot say (the entry is left out, logged).
 */
async function pushedCommits(context: IssuesContext, base: Repository, pull: PullRow, newHead: string): Promise<string | undefined> {
  const repository = gitRepositoryOfRepo(base);
  try {
    const ancestry = await context.git.merge.isAncestor({ repository, commit: pull.head_commit_id, ref: pullHeadRef(pull.index) });
    if (!ancestry.exists || !ancestry.ancestor) return pushBody(true, [pull.head_commit_id, newHead]);
    const commitIds: string[] = [];
    for (let page = 1; page <= PUSH_COMMIT_PAGES; page += 1) {
      const answer = await context.git.merge.listCommitsBetween({ repository, base: pull.head_commit_id, head: newHead, page: { page, limit: PUSH_COMMIT_PAGE }, withFiles: false, withVerification: false });
      commitIds.push(...answer.commits.map((commit) => commit.sha));
      if (answer.commits.length < PUSH_COMMIT_PAGE || commitIds.length >= answer.total) break;
    }
    // Gitea writes nothing for a push that added no commits.
    return commitIds.length === 0 ? undefined : pushBody(false, commitIds.reverse());
  } catch (error) {
    if (isTransient(error)) throw error;
    context.logger.warn({ err: error, repo_id: base.id, index: pull.index }, 'reading the commits of a push to a pull request failed');
    return undefined;
  }
}

/** A push's commits read per page, and pages at most (Gitea lists them all; a huge push keeps its newest 1000). */
const PUSH_COMMIT_PAGE = 100;
const PUSH_COMMIT_PAGES = 10;

/**
 * Checks an open pull request now and records what changed; merged and closed ones are answered as they are.
 * Answers the row as it is afterwards. Checks (and merges) of one pull request run one at a time under its lock, each
 * on the row as the one before left it: a check that started for an older head cannot land after a newer one. A
 * merge intent left behind is settled first (domain/merge-intent.ts).
 */
export async function checkPull(context: IssuesContext, pull: PullRow, options: CheckPullOptions = {}): Promise<PullRow> {
  if (pull.has_merged || pull.is_closed) return pull;
  const base = options.base ?? (await repositoryById(context, pull.repo_id));
  if (base === undefined) return pull;
  return withPullLock(context.db.pool, pull.issue_id, async (db) => {
    const { pull: current } = await settleMergeIntent(context, db, await requirePullByIssueId(db, pull.issue_id), base);
    return checkLocked(context, db, current, base, options.actorId ?? 0);
  });
}

async function checkLocked(context: IssuesContext, db: DatabasePoolConnection, pull: PullRow, base: Repository, actorId: number): Promise<PullRow> {
  if (pull.has_merged || pull.is_closed) return pull;
  const outcome = await runCheck(context, pull, base);
  const headMoved = outcome.headCommitId !== undefined && pull.head_commit_id !== '' && outcome.headCommitId !== pull.head_commit_id;
  const dismiss = headMoved && outcome.headCommitId !== undefined && (await dismissesStaleApprovals(context, base, pull.base_branch));
  const push = headMoved && outcome.headCommitId !== undefined ? await pushedCommits(context, base, pull, outcome.headCommitId) : undefined;
  const detectedMerge =
    outcome.status === 'ancestor' && base.autodetectManualMerge && outcome.headCommitId !== undefined
      ? await findDetectedMerge(context, base, pull, outcome.headCommitId)
      : undefined;

  return db.transaction(async (tx) => {
    const current = await requirePullByIssueId(tx, pull.issue_id, true);
    if (current.has_merged || current.is_closed) return current;
    // The check was made for the head and base branch read under the lock; a row that changed since answers as it is.
    if (current.head_commit_id !== pull.head_commit_id || current.base_branch !== pull.base_branch) return current;
    const unchanged =
      current.status === outcome.status &&
      (outcome.headCommitId === undefined || current.head_commit_id === outcome.headCommitId) &&
      (outcome.mergeBase === undefined || current.merge_base === outcome.mergeBase) &&
      sameFiles(current.conflicted_files, outcome.conflictedFiles);
    let row = current;
    if (!unchanged) {
      row = await updatePullStatus(tx, current.issue_id, {
        status: outcome.status,
        mergeBase: outcome.mergeBase,
        headCommitId: outcome.headCommitId,
        conflictedFiles: outcome.conflictedFiles,
      });
    }
    if (dismiss && outcome.headCommitId !== undefined) await dismissStaleApprovals(tx, current.issue_id, outcome.headCommitId);
    const eventActor = actorId > 0 ? actorId : base.ownerId;
    const moved = outcome.headCommitId !== undefined && current.head_commit_id !== '' && current.head_commit_id !== outcome.headCommitId;
    if (moved || current.status !== row.status) {
      const message = await toPullRequest(tx, row);
      // Gitea's CreatePushPullComment, for the head this check read the push from.
      if (moved && push !== undefined) {
        await insertTimelineEntries(tx, [{ repoId: current.repo_id, issueId: current.issue_id, posterId: eventActor, type: TimelineType.pullPush, body: push }]);
      }
      if (moved) await enqueuePullEvent(tx, 'synchronized', { actorId: eventActor, pull: message, repoPrivate: base.private, changed: ['head'] });
      if (current.status !== row.status) {
        await enqueuePullEvent(tx, 'mergeability_changed', { actorId: eventActor, pull: message, repoPrivate: base.private, changed: ['status'] });
      }
    }
    if (detectedMerge !== undefined) {
      row = await finishMerge(tx, row, {
        commitId: detectedMerge.commitId,
        mergerId: detectedMerge.mergerId,
        mergedAt: detectedMerge.mergedAt,
        style: 'manually-merged',
        status: 'manually_merged',
        repoPrivate: base.private,
      });
    }
    return row;
  });
}

/**
 * The start-up sweep: checks every pull request a merge intent was left for (by a process that stopped between a merge
 * and its record), which settles the intent. A failure is logged and waits for the pull request's next check.
 */
export async function settleLeftMergeIntents(context: IssuesContext): Promise<void> {
  for (const issueId of await listMergeIntentIssueIds(context.db.pool)) {
    try {
      await checkPull(context, await requirePullByIssueId(context.db.pool, issueId));
    } catch (error) {
      context.logger.warn({ err: error, issue_id: issueId }, 'settling a merge left unrecorded failed');
    }
  }
}
