/**
 * A merge recorded (Gitea's SetMerged): the pull request marked merged with its commit, merger, time and style, its
 * issue closed (timeline: merge_pull), and cairn.pull_request.merged and cairn.issue.closed written in the same transaction. Merges through
 * the API, manual merges and manual merges detected on push all end here.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { enqueueIssueEvent } from '../events/issue-events';
import { enqueuePullEvent } from '../events/pull-events';
import { toIssue } from '../store/issues';
import { insertTimelineEntries } from '../store/timeline';
import { stateEntry } from './timeline-entries';
import { updateIssueColumns } from '../store/issue-writes';
import { recordMerge, type MergeRecord } from '../store/pull-outcomes';
import { toPullRequest, type PullRow } from '../store/pulls';

export interface FinishedMerge extends MergeRecord {
  repoPrivate: boolean;
}

export async function finishMerge(tx: DatabaseTransactionConnection, pull: PullRow, merge: FinishedMerge): Promise<PullRow> {
  const merged = await recordMerge(tx, pull.issue_id, merge);
  const issueRow = await updateIssueColumns(tx, pull.issue_id, { isClosed: true });
  // Gitea's SetMerged closes with a merge_pull entry (no close entry).
  await insertTimelineEntries(tx, [stateEntry({ repoId: merged.repo_id, issueId: pull.issue_id, posterId: merge.mergerId }, true, true)]);
  const issue = await toIssue(tx, issueRow);
  const message = await toPullRequest(tx, merged);
  await enqueuePullEvent(tx, 'merged', { actorId: merge.mergerId, pull: message, repoPrivate: merge.repoPrivate, mergeStyle: merge.style });
  await enqueueIssueEvent(tx, 'closed', { actorId: merge.mergerId, issue, repoPrivate: merge.repoPrivate, changed: ['state'] });
  return merged;
}
