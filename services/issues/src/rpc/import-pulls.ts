/**
 * ImportService's pull requests and reviews (proto/cairn/issues/v1/import_service.proto), as Gitea's
 * services/migrations/gitea_uploader.go CreatePullRequests / newPullRequest and CreateReviews write them: the issue row
 * (is_pull, the source's number) with its pull_requests row, and each review with its timeline entry and code
 * comments. Each batch is one transaction under the repository's import lock; what is already there (same number,
 * same source review id) is left alone. The git side (refs/pull/<n>/head, a fork's branch, the patch) is done by
 * the migrations service through git-storage before the pull requests come here. No per-item event is published.
 */
import type { CheckMergeResponse, Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { ImportedReview, ImportServiceService } from '@cairn/proto/cairn/issues/v1/import_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { gitRepositoryOfRepo, isTransient, pullHeadRef, repositoryById } from '../domain/pull-check';
import { insertImportedIssue, issueIdsByIndex, labelIdsByName, lockRepoForImport, milestoneIdsByTitle, raiseIssueIndex } from '../store/imports';
import { type ImportCodeComment, importedReviewIds, insertImportedPull, insertImportedReview } from '../store/pull-imports';
import { findPullByIndex, updatePullStatus, type PullRow, type PullStatus } from '../store/pulls';
import { ReviewType } from '../store/reviews';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { authorColumns, importedTitle, requireRepo } from './import-values';
import { patchesAround } from './review-diff';

/**
 * Gitea's convertReviewState, over both the migration model's names (base.ReviewState*) and the API's
 * (APPROVED, REQUEST_CHANGES, COMMENT): a pending review is not imported (no one could submit it).
 */
const REVIEW_TYPES: Readonly<Record<string, number>> = {
  APPROVED: ReviewType.approve,
  CHANGES_REQUESTED: ReviewType.reject,
  REQUEST_CHANGES: ReviewType.reject,
  COMMENTED: ReviewType.comment,
  COMMENT: ReviewType.comment,
  REQUEST_REVIEW: ReviewType.request,
};

/** Gitea's default head branch name when a fork's head could not be fetched (updateGitForPullRequest). */
const UNKNOWN_HEAD = 'unknown repository';

const CHECKED: ReadonlySet<string> = new Set(['mergeable', 'conflict', 'empty', 'ancestor']);

function requireText(value: string, what: string, reason: string): string {
  if (value.trim() === '') throw CairnError.invalid(`an imported pull request needs its ${what}`, { reason });
  return value;
}

type PullImports = Pick<AsyncServiceOf<typeof ImportServiceService>, 'importPullRequests' | 'importReviews'>;

export function createPullImports(context: IssuesContext): PullImports {
  const { db } = context;

  /**
   * Gitea queues a migrated pull request for its mergeability check (pull.AddToTaskQueue): the open ones new here
   * are checked once against their head ref, and the status written without an event (nothing is announced per
   * migrated item). A check git-storage cannot make leaves the pull request "checking" for the next push to re-check.
   */
  async function checkOpen(repoId: number, pulls: readonly PullRow[]): Promise<void> {
    const open = pulls.filter((pull) => !pull.is_closed && !pull.has_merged && pull.head_commit_id !== '');
    if (open.length === 0) return;
    const base = await repositoryById(context, repoId);
    if (base === undefined) return;
    for (const pull of open) {
      let status: PullStatus;
      let answer: CheckMergeResponse;
      try {
        answer = await context.git.merge.checkMerge({ repository: gitRepositoryOfRepo(base), baseBranch: pull.base_branch, head: pullHeadRef(pull.index) });
        if (!CHECKED.has(answer.status)) continue;
        status = answer.status as PullStatus;
      } catch (error) {
        if (isTransient(error)) throw error;
        context.logger.warn({ err: error, repo_id: repoId, index: pull.index }, 'checking an imported pull request failed');
        continue;
      }
      const { mergeBase, conflictedFiles } = answer;
      await db.pool.transaction((tx) => updatePullStatus(tx, pull.issue_id, { status, mergeBase, conflictedFiles: status === 'conflict' ? conflictedFiles : [] }));
    }
  }

  return {
    async importPullRequests(request) {
      requireRepo(request.repoId);
      const pulls = request.pulls.map((pull) => {
        const issue = pull.issue;
        if (issue === undefined || !Number.isSafeInteger(issue.index) || issue.index <= 0) {
          throw CairnError.invalid('an imported pull request needs its number', { reason: 'issue_index_required' });
        }
        const created = issue.created ?? new Date();
        return {
          ...pull,
          issue,
          title: importedTitle(issue.title),
          author: authorColumns(issue.poster),
          created,
          updated: issue.updated ?? created,
          baseBranch: requireText(pull.baseBranch, 'base branch', 'base_branch_required'),
          headBranch: pull.headBranch.trim() === '' ? UNKNOWN_HEAD : pull.headBranch,
        };
      });
      const { ids, fresh, created } = await guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const indexes = pulls.map((pull) => pull.issue.index);
          const ids = await issueIdsByIndex(tx, request.repoId, indexes);
          const labels = await labelIdsByName(tx, request.repoId, [...new Set(pulls.flatMap((pull) => pull.issue.labels))]);
          const milestones = await milestoneIdsByTitle(tx, request.repoId, [...new Set(pulls.map((pull) => pull.issue.milestone).filter((title) => title !== ''))]);
          const fresh: PullRow[] = [];
          for (const pull of pulls) {
            const { issue } = pull;
            if (ids.has(issue.index)) continue;
            const id = await insertImportedIssue(tx, request.repoId, {
              index: issue.index,
              ...pull.author,
              title: pull.title,
              body: issue.body,
              ref: issue.ref,
              isClosed: issue.isClosed,
              isLocked: issue.isLocked,
              isPull: true,
              milestoneId: milestones.get(issue.milestone) ?? null,
              created: pull.created,
              updated: pull.updated,
              closedAt: issue.isClosed ? (issue.closed ?? pull.updated) : null,
              labelIds: [...new Set(issue.labels.flatMap((name) => labels.get(name) ?? []))],
              assigneeIds: [...new Set(issue.assigneeIds.filter((assignee) => Number.isSafeInteger(assignee) && assignee > 0))],
            });
            await insertImportedPull(tx, request.repoId, {
              issueId: id,
              headBranch: pull.headBranch,
              baseBranch: pull.baseBranch,
              headCommitId: pull.headCommitId,
              mergeBase: pull.mergeBase,
              merged: pull.merged,
              // Gitea records merged_unix, the merge commit and the importing user as merger only with a merge time.
              mergedAt: pull.merged ? (pull.mergedAt ?? null) : null,
              mergedCommitId: pull.merged && pull.mergedAt !== undefined ? pull.mergeCommitId : '',
              mergerId: pull.merged && pull.mergedAt !== undefined ? pull.mergerId : 0,
            });
            ids.set(issue.index, id);
            const row = await findPullByIndex(tx, request.repoId, issue.index);
            if (row !== undefined) fresh.push(row);
          }
          if (indexes.length > 0) await raiseIssueIndex(tx, request.repoId, Math.max(...indexes));
          return { ids: indexes.map((index) => ({ index, id: ids.get(index) ?? 0 })), fresh, created: fresh.length };
        }),
      );
      await guard(() => checkOpen(request.repoId, fresh));
      return { pulls: ids, created };
    },

    async importReviews(request) {
      requireRepo(request.repoId);
      const reviews = request.reviews.flatMap((review) => {
        if (!Number.isSafeInteger(review.sourceId) || review.sourceId <= 0) {
          throw CairnError.invalid('an imported review needs its source id', { reason: 'review_source_required' });
        }
        const type = REVIEW_TYPES[review.state.toUpperCase()];
        if (type === undefined) return [];
        return [{ review, type, author: authorColumns(review.reviewer) }];
      });
      const skipped = request.reviews.length - reviews.length;
      if (skipped > 0) context.logger.info({ repo_id: request.repoId, skipped }, 'pending reviews are not imported');
      const pullsByIndex = await guard(async () => {
        const found = new Map<number, PullRow>();
        for (const index of new Set(reviews.map(({ review }) => review.pullIndex))) {
          const pull = await findPullByIndex(db.pool, request.repoId, index);
          if (pull === undefined) throw CairnError.precondition(`pull request #${index} has not been imported`, { reason: 'pull_not_imported' });
          found.set(index, pull);
        }
        return found;
      });
      const already = await guard(() => importedReviewIds(db.pool, request.repoId, reviews.map(({ review }) => review.sourceId)));
      // The patches are cut from git-storage's diff before the transaction (only for reviews not taken in yet).
      const comments = new Map<number, ImportCodeComment[]>();
      const base = reviews.some(({ review }) => !already.has(review.sourceId) && review.comments.length > 0) ? await guard(() => repositoryById(context, request.repoId)) : undefined;
      for (const { review } of reviews) {
        if (already.has(review.sourceId)) continue;
        const pull = pullsByIndex.get(review.pullIndex);
        if (pull === undefined) continue;
        comments.set(review.sourceId, await codeComments(review, pull, base === undefined ? undefined : gitRepositoryOfRepo(base)));
      }
      return guard(() =>
        db.pool.transaction(async (tx) => {
          await lockRepoForImport(tx, request.repoId);
          const ids = await importedReviewIds(tx, request.repoId, reviews.map(({ review }) => review.sourceId));
          let created = 0;
          for (const { review, type, author } of reviews) {
            const pull = pullsByIndex.get(review.pullIndex);
            if (ids.has(review.sourceId) || pull === undefined) continue;
            const submitted = review.submitted ?? new Date();
            const id = await insertImportedReview(tx, request.repoId, {
              issueId: pull.issue_id,
              sourceId: review.sourceId,
              author,
              type,
              body: review.body,
              commitId: review.commitId,
              official: review.official,
              created: submitted,
              comments: comments.get(review.sourceId) ?? [],
            });
            ids.set(review.sourceId, id);
            created += 1;
          }
          return { reviews: request.reviews.map((review) => ({ sourceId: review.sourceId, id: ids.get(review.sourceId) ?? 0 })), created };
        }),
      );
    },
  };

  /**
   * A review's code comments (Gitea's CreateReviews): a comment without a valid commit id takes the pull request's
   * head, the tree path is made relative (util.PathJoinRel), and the patch is cut from the pull request's diff around
   * the line as Gitea cuts it. Without a merge base Gitea keeps no comments (no basis for any patch).
   */
  async function codeComments(review: ImportedReview, pull: PullRow, repository: GitRepository | undefined): Promise<ImportCodeComment[]> {
    if (review.comments.length === 0) return [];
    if (pull.merge_base === '' || pull.head_commit_id === '') {
      context.logger.warn({ repo_id: pull.repo_id, index: pull.index }, 'imported pull request has no merge base or head: its review comments are not imported');
      return [];
    }
    const values = review.comments.map((comment) => ({ ...comment, path: relativePath(comment.path) }));
    const patches = repository === undefined ? values.map(() => '') : await patchesAround(context, repository, pull, values);
    const submitted = review.submitted ?? new Date();
    return values.map((comment, i) => {
      const created = comment.created ?? submitted;
      return {
        body: comment.body,
        path: comment.path,
        line: comment.line,
        commitId: /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(comment.commitId) ? comment.commitId : pull.head_commit_id,
        // The source's excerpt when git cannot cut one (the commented lines are gone from the diff).
        patch: patches[i] || sourcePatch(comment.path, comment.patch),
        created,
        updated: comment.updated ?? created,
      };
    });
  }
}

/** Gitea's util.PathJoinRel: a cleaned path relative to the tree's root (no `..` escapes, no leading slash). */
function relativePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** A source's diff hunk (the API's `diff_hunk`, from its `@@` line) as a patch with the file's headers. */
function sourcePatch(path: string, hunk: string): string {
  if (!hunk.startsWith('@@')) return hunk;
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${hunk}`;
}
