/**
 * cairn.issue.time_added / .time_deleted and cairn.issue.stopwatch_started / _stopped / _cancelled (IssueEvent),
 * written in the transaction of the change: the issue, the repository's privacy and, for time events and a stopped
 * stopwatch, the tracked time (a stopped stopwatch publishes stopwatch_stopped and time_added, both with the time
 * it added). The actor is the user who acted (for a time added on someone's behalf, not the time's user).
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue, TrackedTime } from '@cairn/proto/cairn/issues/v1/issues_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

export type TimeChange = 'time_added' | 'time_deleted' | 'stopwatch_started' | 'stopwatch_stopped' | 'stopwatch_cancelled';

const SUBJECTS: Readonly<Record<TimeChange, string>> = {
  time_added: Subject.issueTimeAdded,
  time_deleted: Subject.issueTimeDeleted,
  stopwatch_started: Subject.issueStopwatchStarted,
  stopwatch_stopped: Subject.issueStopwatchStopped,
  stopwatch_cancelled: Subject.issueStopwatchCancelled,
};

export interface TimeEventFacts {
  actorId: number;
  issue: Issue;
  /**
   * The repository's privacy. A stopwatch stopped because its user started another one elsewhere is reported with
   * `true` when its repository is not the one of the request: this service does not know it, and `true` makes
   * consumers check before they show anything.
   */
  repoPrivate: boolean;
  trackedTime?: TrackedTime;
}

export function enqueueTimeEvent(tx: DatabaseTransactionConnection, change: TimeChange, facts: TimeEventFacts): Promise<string> {
  return enqueue(tx, SUBJECTS[change], IssueEvent, { actorId: facts.actorId, repoId: facts.issue.repoId }, (meta) =>
    IssueEvent.fromPartial({ meta, issue: facts.issue, repoPrivate: facts.repoPrivate, trackedTime: facts.trackedTime }),
  );
}
