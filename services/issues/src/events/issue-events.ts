/**
 * The issue's own events (IssueEvent): cairn.issue.opened, .edited (title, body, ref, deadline), .closed, .reopened,
 * .deleted, .assigned, .milestoned, .labeled, .locked, .unlocked — written in the transaction of the change, each with the
 * issue as it is after the change (as it was, for .deleted) and the repository's privacy, so that notifications and
 * webhooks neither ask back nor leak a private repository's issue.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue, Label } from '@cairn/proto/cairn/issues/v1/issues_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

export type IssueChange = 'opened' | 'edited' | 'closed' | 'reopened' | 'deleted' | 'assigned' | 'milestoned' | 'labeled' | 'locked' | 'unlocked';

const SUBJECTS: Readonly<Record<IssueChange, string>> = {
  opened: Subject.issueOpened,
  edited: Subject.issueEdited,
  closed: Subject.issueClosed,
  reopened: Subject.issueReopened,
  deleted: Subject.issueDeleted,
  assigned: Subject.issueAssigned,
  milestoned: Subject.issueMilestoned,
  labeled: Subject.issueLabeled,
  locked: Subject.issueLocked,
  unlocked: Subject.issueUnlocked,
};

export interface IssueEventFacts {
  actorId: number;
  issue: Issue;
  repoPrivate: boolean;
  /** Field names that changed ("title", "body", "ref", "deadline", "state", "assignees", "milestone", "locked"). */
  changed?: readonly string[];
  previousTitle?: string;
  previousBody?: string;
  addedAssigneeIds?: readonly number[];
  removedAssigneeIds?: readonly number[];
  /** Users mentioned in this issue for the first time by this change. */
  mentionedUserIds?: readonly number[];
  addedLabels?: readonly Label[];
  removedLabels?: readonly Label[];
}

export function enqueueIssueEvent(tx: DatabaseTransactionConnection, change: IssueChange, facts: IssueEventFacts): Promise<string> {
  return enqueue(tx, SUBJECTS[change], IssueEvent, { actorId: facts.actorId, repoId: facts.issue.repoId }, (meta) =>
    IssueEvent.fromPartial({
      meta,
      issue: facts.issue,
      repoPrivate: facts.repoPrivate,
      changed: [...(facts.changed ?? [])],
      previousTitle: facts.previousTitle ?? '',
      previousBody: facts.previousBody ?? '',
      addedAssigneeIds: [...(facts.addedAssigneeIds ?? [])],
      removedAssigneeIds: [...(facts.removedAssigneeIds ?? [])],
      mentionedUserIds: [...(facts.mentionedUserIds ?? [])],
      addedLabels: [...(facts.addedLabels ?? [])],
      removedLabels: [...(facts.removedLabels ?? [])],
    }),
  );
}
