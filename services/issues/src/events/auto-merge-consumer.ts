/**
 * What tries scheduled merges again (Gitea's services/automerge notifier), each through rpc/auto-merge.ts
 * tryAutoMerge:
 * - `issues-automerge` on repos' stream: a `success` commit status (cairn.commit_status.created) tries the open,
 *   scheduled pull requests into that repository whose head is that commit (Gitea's StartPRCheckAndAutoMergeBySHA,
 *   called for successful statuses only);
 * - `issues-automerge-reviews` on issues' own stream: an approval (cairn.pull_review.submitted, APPROVED) tries its
 *   pull request when the approved commit is still the head; a dismissal tries it at the current head.
 * A head push is no trigger (Gitea's neither): the new head's statuses are. A try that git-storage, repos or
 * accounts cannot answer now, or that another try holds, throws so the bus redelivers the event; a redelivered
 * event finds nothing left to merge.
 */
import type { Bus, BusHandler, Subscription } from '@cairn/bus';
import { PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import { CommitStatusCreated } from '@cairn/proto/cairn/repos/v1/events';
import { isTransient } from '../domain/pull-check';
import type { IssuesContext } from '../rpc/context';
import { tryAutoMerge } from '../rpc/auto-merge';
import { findScheduledPullsByHead } from '../store/auto-merges';
import { handledAfter } from './git-consumer';
import { ConsumedSubject, ISSUES_STREAM, REPOS_STREAM, Subject } from './subjects';

export const AUTO_MERGE_CONSUMER = 'issues-automerge';
export const AUTO_MERGE_REVIEWS_CONSUMER = 'issues-automerge-reviews';
export const REVIEW_EVENTS = 'cairn.pull_review.>';

/** A try whose failure is not transient is logged (Gitea logs a failed scheduled merge) and the schedule stays. */
async function tryLogged(context: IssuesContext, issueId: number, headCommitId?: string): Promise<void> {
  try {
    await tryAutoMerge(context, issueId, headCommitId);
  } catch (error) {
    if (isTransient(error)) throw error;
    context.logger.error({ err: error, issue_id: issueId }, 'scheduled merge failed');
  }
}

export function commitStatusHandler(context: IssuesContext): BusHandler {
  return handledAfter(context, AUTO_MERGE_CONSUMER, CommitStatusCreated, async (event) => {
    if (event.state !== 'success' || event.repoId <= 0 || event.sha === '') return;
    const pulls = await findScheduledPullsByHead(context.db.pool, event.repoId, event.sha);
    for (const pull of pulls) await tryLogged(context, pull.issue_id, event.sha);
  });
}

export function reviewEventsHandler(context: IssuesContext): BusHandler {
  return handledAfter(context, AUTO_MERGE_REVIEWS_CONSUMER, PullReviewEvent, async (event, message) => {
    const issueId = event.pull?.issue?.id ?? 0;
    if (issueId <= 0) return;
    if (message.subject === Subject.reviewSubmitted && event.review?.state === 'APPROVED') {
      await tryLogged(context, issueId, event.review.commitId);
    } else if (message.subject === Subject.reviewDismissed) {
      await tryLogged(context, issueId);
    }
  });
}

export function startCommitStatusConsumer(context: IssuesContext, bus: Bus): Promise<Subscription> {
  return bus.consume({
    stream: REPOS_STREAM,
    durable: AUTO_MERGE_CONSUMER,
    filterSubject: ConsumedSubject.commitStatusCreated,
    handler: commitStatusHandler(context),
  });
}

export function startReviewEventsConsumer(context: IssuesContext, bus: Bus): Promise<Subscription> {
  return bus.consume({ stream: ISSUES_STREAM, durable: AUTO_MERGE_REVIEWS_CONSUMER, filterSubject: REVIEW_EVENTS, handler: reviewEventsHandler(context) });
}
