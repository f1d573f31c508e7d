/**
 * The git side of imported pull requests (Gitea's services/migrations/gitea_uploader.go updateGitForPullRequest),
 * done by git-storage's MergeService.ImportPullHeads before the rows are written: each patch (the downloader's
 * getPullPatch) kept as pulls/<n>.patch, head commits the repository lacks fetched from the source's
 * refs/pull/<n>/head, an open fork pull request's branch fetched from the fork into refs/heads/<owner>/<ref>, and
 * refs/pull/<n>/head set where the head commit is here. A pull request is from a fork when its head repository is not
 * the base repository (Gitea's IsForkPullRequest); a closed one's fork is not fetched, as in Gitea.
 */
import type { Logger } from '@cairn/log';
import type { PullRequest, Review } from '@cairn/migration';
import type { ImportedPullHead, ImportedPullHeadResult } from '@cairn/proto/cairn/git/v1/git_service';
import type { ImportedAuthor, ImportedReview } from '@cairn/proto/cairn/issues/v1/import_service';
import type { MigrationsClients } from '../rpc/context';
import type { UploadTarget } from './cairn-uploader';

/** Patches sent in one ImportPullHeads call at most (the RPC's messages are limited to 64 MiB). */
const CALL_PATCH_BYTES = 32 << 20;

/**
 * A commit id as git-storage takes it, else '' (none): a source or a dump may name a head that is no object id (a
 * hand-edited dump's zero id, a number YAML read as one); Gitea's rev-list check then finds nothing and sets no ref.
 */
function objectId(sha: string): string {
  const id = sha.trim().toLowerCase();
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id) && !/^0+$/.test(id) ? id : '';
}

/** Gitea's IsForkPullRequest: the head's repository is not the base's. */
export function isForkPull(pull: PullRequest): boolean {
  const head = `${pull.head.ownerName}/${pull.head.repoName}`.toLowerCase();
  const base = `${pull.base.ownerName}/${pull.base.repoName}`.toLowerCase();
  return pull.head.repoName !== '' && head !== base;
}

/** Sets up the pull requests' git data; answers git-storage's result per pull request number. */
export async function importPullGit(
  clients: Pick<MigrationsClients, 'pullHeads'>,
  target: UploadTarget,
  pulls: readonly PullRequest[],
  log: Logger,
): Promise<Map<number, ImportedPullHeadResult>> {
  const source = target.pullSource;
  const results = new Map<number, ImportedPullHeadResult>();
  if (source === undefined) return results;
  const heads: ImportedPullHead[] = [];
  for (const pull of pulls) {
    let patch = (await source.patch(pull)) ?? Buffer.alloc(0);
    if (patch.length > CALL_PATCH_BYTES) {
      log.warn({ step: 'pull_requests', index: pull.number, bytes: patch.length }, 'pull request patch too large to keep; skipped');
      patch = Buffer.alloc(0);
    }
    heads.push({
      index: pull.number,
      headSha: objectId(pull.head.sha),
      headRef: pull.head.ref,
      baseRef: pull.base.ref,
      baseSha: objectId(pull.mergeBase ?? '') || objectId(pull.base.sha),
      fromFork: isForkPull(pull) && pull.state !== 'closed',
      headCloneUrl: pull.head.cloneUrl,
      headOwner: pull.head.ownerName,
      patch,
    });
  }
  // Calls of at most CALL_PATCH_BYTES of patches each.
  let batch: ImportedPullHead[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const answer = await clients.pullHeads.importPullHeads(
      { repository: { storage: '', repoId: target.repoId }, url: source.cloneAddr, auth: source.auth, pulls: batch, timeoutSeconds: source.timeoutSeconds },
      { deadlineMs: source.timeoutSeconds * 1000 + 30_000 },
    );
    for (const result of answer.pulls) results.set(result.index, result);
    batch = [];
    bytes = 0;
  };
  for (const head of heads) {
    if (bytes + head.patch.length > CALL_PATCH_BYTES) await flush();
    batch.push(head);
    bytes += head.patch.length;
  }
  await flush();
  return results;
}

/**
 * Gitea's CreateReviews for one review: its author, and its comments with the line as Gitea takes it (the source's
 * signed line; without one, the diff hunk's position counts from the hunk's start, git.ParseDiffHunkString).
 */
export function reviewValues(review: Review, reviewer: ImportedAuthor): ImportedReview {
  return {
    pullIndex: review.issueIndex,
    sourceId: review.id,
    reviewer,
    state: review.state,
    body: review.content,
    commitId: review.commitId,
    official: review.official,
    submitted: review.createdAt,
    comments: review.comments.map((comment) => ({
      body: comment.content,
      path: comment.treePath,
      line: comment.line !== 0 ? comment.line : hunkLine(comment.diffHunk) + Math.max(comment.position, 1) - 1,
      commitId: comment.commitId,
      patch: comment.diffHunk,
      created: comment.createdAt,
      updated: comment.updatedAt,
    })),
  };
}

/**
 * Gitea's git.ParseDiffHunkString's line: of a hunk header `@@ -a,b +c,d @@`, the new side's start (c), or the old
 * side's negated (-a) when the hunk only removes; 0 without a header.
 */
function hunkLine(hunk: string): number {
  const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(hunk);
  if (match === null) return 0;
  const newCount = match[4] === undefined ? 1 : Number(match[4]);
  return newCount > 0 ? Number(match[3]) : -Number(match[1]);
}
