/**
 * The patches of new review comments (Gitea's CreateCodeComment: the file's diff from the pull request's merge base
 * to its head, cut to the commented line and `[ui] CODE_COMMENT_LINES` lines above it — domain/diff-hunk.ts).
 * git-storage's GetDiff streams the pull request's diff once; only the sections of the files commented on are
 * kept. The excerpt is a courtesy of the answer: when git-storage cannot give the diff, the comments are kept
 * without one (and the failure logged).
 */
import type { Repository as GitRepository } from '@cairn/proto/cairn/git/v1/git_service';
import type { NewReviewComment } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { FileDiffCollector, cutDiffAroundLine } from '../domain/diff-hunk';
import type { Access } from '../domain/permissions';
import { gitRepositoryOfRepo, pullHeadRef } from '../domain/pull-check';
import type { PullRow } from '../store/pulls';
import type { IssuesContext } from './context';

async function fileDiffs(context: Pick<IssuesContext, 'git'>, repository: GitRepository, pull: PullRow, paths: ReadonlySet<string>): Promise<Map<string, string>> {
  const collector = new FileDiffCollector(paths);
  const decoder = new TextDecoder();
  const stream = context.git.merge.getDiff({
    repository,
    // git-storage diffs from the merge base of these two, as Gitea diffs from pr.MergeBase.
    base: pull.merge_base !== '' ? pull.merge_base : pull.base_branch,
    head: pull.head_commit_id !== '' ? pull.head_commit_id : pullHeadRef(pull.index),
    format: 'diff',
    binary: false,
  });
  for await (const chunk of stream) collector.push(decoder.decode(chunk.data, { stream: true }));
  collector.push(decoder.decode());
  return collector.finish();
}

/** Each comment's patch, in order ("" where no hunk holds its line). */
export async function commentPatches(
  context: Pick<IssuesContext, 'git' | 'logger' | 'config'>,
  access: Access,
  pull: PullRow,
  comments: readonly NewReviewComment[],
): Promise<string[]> {
  const lines = comments.map((comment) => ({ path: comment.path, line: comment.oldPosition > 0 ? -comment.oldPosition : comment.newPosition }));
  return patchesAround(context, gitRepositoryOfRepo(access.repository), pull, lines);
}

/** The patch of each (path, signed line: negative on the old side), in order ("" where no hunk holds the line). */
export async function patchesAround(
  context: Pick<IssuesContext, 'git' | 'logger' | 'config'>,
  repository: GitRepository,
  pull: PullRow,
  comments: ReadonlyArray<{ path: string; line: number }>,
): Promise<string[]> {
  if (comments.length === 0) return [];
  let diffs: Map<string, string>;
  try {
    diffs = await fileDiffs(context, repository, pull, new Set(comments.map((comment) => comment.path)));
  } catch (error) {
    context.logger.warn({ err: error, repo_id: pull.repo_id, issue_id: pull.issue_id }, 'review comment diff unavailable');
    return comments.map(() => '');
  }
  const lines = context.config.ui.codeCommentLines;
  return comments.map((comment) => {
    const diff = diffs.get(comment.path);
    if (diff === undefined) return '';
    return cutDiffAroundLine(diff, Math.abs(comment.line), comment.line < 0, lines);
  });
}
