/**
 * Gitea's handleCloseCrossReferences, for a pull request merged through the API (or its scheduled merge): the
 * issues of the same repository that its title or body names after a close keyword ("Fixes #12") are closed, and
 * after a reopen keyword reopened, by the merger, in the merge's transaction. Each change writes what closing or
 * reopening by hand writes: the state, a close or reopen timeline entry and cairn.issue.closed / .reopened. For an
 * issue named more than once the last action counts (Gitea's updateCrossReferenceList); pull requests, issues already
 * in the wanted state and numbers that name nothing are left alone. Only a repository whose issues are enabled.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type ReferenceAction, type ReferenceKeywords, actionReferences } from '../domain/issue-references';
import { stateEntry } from '../domain/timeline-entries';
import { enqueueIssueEvent } from '../events/issue-events';
import { lockIssuesByIndex, updateIssueColumns } from '../store/issue-writes';
import { toIssue } from '../store/issues';
import { insertTimelineEntries } from '../store/timeline';

export interface MergedPullText {
  repository: Repository;
  /** Whether the repository has its issues unit. */
  issuesEnabled: boolean;
  title: string;
  body: string;
  mergerId: number;
}

/** The last action the text asks for each issue number of `repository`. */
function wantedStates(text: MergedPullText, keywords: ReferenceKeywords): Map<number, ReferenceAction> {
  const fullName = `${text.repository.ownerName}/${text.repository.name}`.toLowerCase();
  const wanted = new Map<number, ReferenceAction>();
  const found = [...actionReferences(text.title, keywords), ...actionReferences(text.body, keywords, true)];
  for (const ref of found) {
    if (ref.owner !== '' && `${ref.owner}/${ref.repo}`.toLowerCase() !== fullName) continue;
    wanted.set(ref.index, ref.action);
  }
  return wanted;
}

export async function resolveClosingReferences(tx: DatabaseTransactionConnection, text: MergedPullText, keywords: ReferenceKeywords): Promise<void> {
  if (!text.issuesEnabled) return;
  const wanted = wantedStates(text, keywords);
  const { repository, mergerId } = text;
  for (const row of await lockIssuesByIndex(tx, repository.id, [...wanted.keys()])) {
    const closing = wanted.get(row.index) === 'close';
    if (row.is_closed === closing) continue;
    const after = await updateIssueColumns(tx, row.id, { isClosed: closing });
    await insertTimelineEntries(tx, [stateEntry({ repoId: row.repo_id, issueId: row.id, posterId: mergerId }, closing)]);
    await enqueueIssueEvent(tx, closing ? 'closed' : 'reopened', {
      actorId: mergerId,
      issue: await toIssue(tx, after),
      repoPrivate: repository.private,
      changed: ['state'],
    });
  }
}
