/**
 * Merges whose outcome was never recorded. rpc/pull-merge.ts writes a merge intent (store/merge-intents.ts) and
 * commits it before git-storage moves the base branch, and deletes it with the merge's record. An intent found later
 * (under the pull request's lock, so no merge of it is under way) is settled from the base branch: when it holds the
 * merge's commits — recognised by the committer signature the merge wrote them with, or for a fast-forward by the
 * head itself — the merge is recorded as it would have been (domain/merge-record.ts finishMerge, the closing
 * references planned for it); otherwise git never moved and the intent is dropped, so the merge can be asked again.
 * The next merge of the pull request, its next mergeability check (domain/pull-check.ts; the merge's own push asks
 * for one) and the start-up sweep settle intents.
 */
import { type DatabasePoolConnection, z } from '@cairn/db';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code } from '@cairn/rpc';
import type { IssuesContext } from '../rpc/context';
import { applyClosingReferences, type ClosingTargets } from '../rpc/closing-references';
import { deleteMergeIntent, findMergeIntent, type MergeIntentRow } from '../store/merge-intents';
import { requirePullByIssueId, type PullRow } from '../store/pulls';
import { finishMerge } from './merge-record';
import { gitRepositoryOfRepo } from './pull-check';

/** The base branch's commits read per page, and pages at most, looking for the merge's. */
const COMMIT_PAGE = 100;
const COMMIT_PAGES = 10;

const closingTargets = z.array(
  z.object({
    repoId: z.number(),
    repoPrivate: z.boolean(),
    actions: z.array(z.tuple([z.number(), z.enum(['close', 'reopen'])])),
    anyIssue: z.boolean(),
  }),
);

/** A git signature's time as git keeps it: whole seconds. */
export function gitTime(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** The commit the intent's merge left on the base branch (the merged commit id to record), or undefined when it left none. */
async function intendedMergeCommit(context: IssuesContext, base: Repository, pull: PullRow, intent: MergeIntentRow): Promise<string | undefined> {
  const repository = gitRepositoryOfRepo(base);
  const branch = `refs/heads/${pull.base_branch}`;
  try {
    if (intent.merge_style !== 'fast-forward-only') {
      const committedAt = gitTime(intent.committed_at).getTime();
      let seen = 0;
      for (let page = 1; page <= COMMIT_PAGES; page += 1) {
        // Newest first: with several commits of the merge (the rebase styles), the newest is the tip it wrote.
        const answer = await context.git.merge.listCommitsBetween({
          repository,
          base: intent.base_commit_id,
          head: branch,
          page: { page, limit: COMMIT_PAGE },
          withFiles: false,
          withVerification: false,
        });
        const written = answer.commits.find(
          ({ committer }) =>
            committer?.name === intent.committer_name && committer.email === intent.committer_email && committer.when?.getTime() === committedAt,
        );
        if (written !== undefined) return written.sha;
        seen += answer.commits.length;
        if (answer.commits.length < COMMIT_PAGE || seen >= answer.total) break;
      }
    }
    // A fast-forward (or a rebase with nothing to replay) writes no commit: the base branch now contains the head.
    const contained = await context.git.merge.isAncestor({ repository, commit: intent.head_commit_id, ref: branch });
    return contained.exists && contained.ancestor ? intent.head_commit_id : undefined;
  } catch (error) {
    // The base branch is gone: nothing can be told from it, and nothing will be.
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return undefined;
    throw error;
  }
}

export interface SettledIntent {
  /** The pull request's row afterwards. */
  pull: PullRow;
  /** The merger of a merge this settling recorded; undefined when there was none to record. */
  recordedFor?: number;
}

/**
 * Settles pull request `pull`'s intent, if it has one; `connection` holds the pull request's lock (withPullLock).
 * git-storage's transient failures are thrown, leaving the intent for the next try.
 */
export async function settleMergeIntent(
  context: IssuesContext,
  connection: DatabasePoolConnection,
  pull: PullRow,
  base: Repository,
): Promise<SettledIntent> {
  const intent = await findMergeIntent(connection, pull.issue_id);
  if (intent === undefined) return { pull };
  const commitId = pull.has_merged ? undefined : await intendedMergeCommit(context, base, pull, intent);
  return connection.transaction(async (tx) => {
    await deleteMergeIntent(tx, pull.issue_id);
    const current = await requirePullByIssueId(tx, pull.issue_id, true);
    if (commitId === undefined || current.has_merged) {
      context.logger.info({ repo_id: current.repo_id, index: current.index }, 'dropped a merge intent: the base branch has no merge of it');
      return { pull: current };
    }
    const style = intent.merge_style;
    const merged = await finishMerge(tx, current, { commitId, mergerId: intent.merger_id, style, repoPrivate: base.private });
    const closing: ClosingTargets[] = closingTargets.parse(intent.closing);
    await applyClosingReferences(tx, closing, { mergerId: intent.merger_id, posterId: current.poster_id });
    context.logger.warn({ repo_id: current.repo_id, index: current.index, commit_id: commitId }, 'recorded a merge that git-storage made but was never recorded');
    return { pull: merged, recordedFor: intent.merger_id };
  });
}
