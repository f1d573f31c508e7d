/**
 * cairn.issue.subscribed / cairn.issue.unsubscribed (IssueEvent), written in the transaction of the change: the
 * issue, the repository's privacy and the user whose subscription changed (`subject_user_id`; the actor is who
 * changed it, a site admin for someone else).
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { enqueue } from './outbox';
import { Subject } from './subjects';

export interface SubscriptionEventFacts {
  actorId: number;
  issue: Issue;
  repoPrivate: boolean;
  userId: number;
  subscribed: boolean;
}

export function enqueueSubscriptionEvent(tx: DatabaseTransactionConnection, facts: SubscriptionEventFacts): Promise<string> {
  const subject = facts.subscribed ? Subject.issueSubscribed : Subject.issueUnsubscribed;
  return enqueue(tx, subject, IssueEvent, { actorId: facts.actorId, repoId: facts.issue.repoId }, (meta) =>
    IssueEvent.fromPartial({ meta, issue: facts.issue, repoPrivate: facts.repoPrivate, subjectUserId: facts.userId }),
  );
}
