/** Milestone events (MilestoneEvent): cairn.milestone.created, .updated, .closed, .reopened, .deleted. */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { MilestoneEvent } from '@cairn/proto/cairn/issues/v1/events';
import { type MilestoneRow, toMilestone } from '../store/issues';
import { enqueue } from './outbox';
import { Subject } from './subjects';

type MilestoneSubject =
  | typeof Subject.milestoneCreated
  | typeof Subject.milestoneUpdated
  | typeof Subject.milestoneClosed
  | typeof Subject.milestoneReopened
  | typeof Subject.milestoneDeleted;

export function enqueueMilestoneEvent(
  tx: DatabaseTransactionConnection,
  subject: MilestoneSubject,
  milestone: MilestoneRow,
  facts: { actorId: number; repoPrivate: boolean },
): Promise<string> {
  return enqueue(tx, subject, MilestoneEvent, { actorId: facts.actorId, repoId: milestone.repo_id }, (meta) => ({
    meta,
    milestone: toMilestone(milestone),
    repoPrivate: facts.repoPrivate,
  }));
}
