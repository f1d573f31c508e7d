/**
 * Label events: cairn.label.created / .updated / .deleted (LabelEvent; meta.repo_id is the repository of a
 * repository label, 0 for an organization label, whose org_id the label carries; repo_private as for issues), and cairn.issue.labeled
 * (IssueEvent with changed ["labels"] and the labels added and removed) when an issue's labels change.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { LabelEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type LabelRow, toLabel } from '../store/issues';
import { enqueueIssueEvent } from './issue-events';
import { enqueue } from './outbox';
import { Subject } from './subjects';

type LabelSubject = typeof Subject.labelCreated | typeof Subject.labelUpdated | typeof Subject.labelDeleted;

export function enqueueLabelEvent(
  tx: DatabaseTransactionConnection,
  subject: LabelSubject,
  label: LabelRow,
  facts: { actorId: number; repoPrivate: boolean },
): Promise<string> {
  return enqueue(tx, subject, LabelEvent, { actorId: facts.actorId, repoId: label.repo_id }, (meta) => ({
    meta,
    label: toLabel(label),
    repoPrivate: facts.repoPrivate,
  }));
}

export interface LabelsChange {
  /** The issue after the change. */
  issue: Issue;
  repoPrivate: boolean;
  added: readonly LabelRow[];
  removed: readonly LabelRow[];
}

export function enqueueIssueLabeled(tx: DatabaseTransactionConnection, change: LabelsChange, actorId: number): Promise<string> {
  return enqueueIssueEvent(tx, 'labeled', {
    actorId,
    issue: change.issue,
    repoPrivate: change.repoPrivate,
    changed: ['labels'],
    addedLabels: change.added.map(toLabel),
    removedLabels: change.removed.map(toLabel),
  });
}
