/**
 * An event, by its subject, as the payloads it may give and where their hooks are (Gitea's webhook notifier, one
 * method per notification). Subjects with no webhook (labels, milestones, time tracking, subscriptions, stars, …)
 * give nothing.
 */
import { decodeEvent, type EventDecoder } from '@cairn/bus';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import { CommitStatusCreated, ReleaseDeleted, ReleasePublished, ReleaseUpdated, RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import { commentPlans, issuePlans, pullPlans, reviewPlans } from './issues';
import type { EventPlan, PlannedPayload } from './plan';
import { pushPlans } from './push';
import { releasePlan, repoCreatedPlan, repoDeletedPlan, repoForkedPlans, statusPlan } from './repos';
import type { PayloadServices } from './services';

export type { EventPlan, PlannedPayload, BuiltPayload } from './plan';
export type { PayloadServices } from './services';

/** An event read from its message: its id (processOnce's key), when it committed and its plans. */
export interface ReadEvent {
  eventId: string;
  /** meta.occurred_at: the public stream's ce-time; when the message was read if the event has none. */
  occurredAt: Date;
  plans: EventPlan[];
}

type Plan<T> = (services: PayloadServices, event: T, eventId: string, change: string) => EventPlan[];
/** Reads a message of one kind and plans it. */
type Planner = (services: PayloadServices, data: Uint8Array, change: string) => ReadEvent | { problem: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function planner<T extends { meta?: EventMeta | undefined }>(type: EventDecoder<T>, plan: Plan<T>): Planner {
  return (services, data, change) => {
    let event: T;
    try {
      event = decodeEvent(type, data);
    } catch {
      return { problem: 'payload is not JSON' };
    }
    const eventId = event.meta?.eventId ?? '';
    if (!UUID.test(eventId)) return { problem: 'meta.eventId is not a UUID' };
    return { eventId, occurredAt: event.meta?.occurredAt ?? new Date(), plans: plan(services, event, eventId, change) };
  };
}

/** Issue events: the repository is the issue's; its owner is read when some hook may care. */
function atRepo(repoId: number | undefined, payloads: PlannedPayload[]): EventPlan[] {
  return repoId === undefined || payloads.length === 0 ? [] : [{ repoId, withRepoHooks: true, payloads }];
}

/** By subject, or by the subject's aggregate (`cairn.issue` for cairn.issue.*). */
const PLANNERS: Readonly<Record<string, Planner>> = {
  'cairn.git.pushed': planner(GitPushed, (services, event, eventId) => [
    { repoId: event.repoId, ownerId: event.repoOwnerId, withRepoHooks: true, payloads: pushPlans(services, event, eventId) },
  ]),
  'cairn.issue': planner(IssueEvent, (services, event, eventId, change) => atRepo(event.issue?.repoId, issuePlans(services, change, event, eventId))),
  'cairn.issue_comment': planner(IssueCommentEvent, (services, event, eventId, change) =>
    atRepo(event.issue?.repoId, commentPlans(services, change, event, eventId)),
  ),
  'cairn.pull_request': planner(PullRequestEvent, (services, event, eventId, change) =>
    atRepo(event.pull?.issue?.repoId, pullPlans(services, change, event, eventId)),
  ),
  'cairn.pull_review': planner(PullReviewEvent, (services, event, eventId, change) =>
    atRepo(event.pull?.issue?.repoId, reviewPlans(services, change, event, eventId)),
  ),
  'cairn.repo.created': planner(RepoCreated, repoCreatedPlan),
  'cairn.repo.deleted': planner(RepoDeleted, repoDeletedPlan),
  'cairn.repo.forked': planner(RepoForked, repoForkedPlans),
  'cairn.release.published': planner(ReleasePublished, (services, event, eventId) => releasePlan(services, 'published', event, eventId)),
  'cairn.release.updated': planner(ReleaseUpdated, (services, event, eventId) => releasePlan(services, 'updated', event, eventId)),
  'cairn.release.deleted': planner(ReleaseDeleted, (services, event, eventId) => releasePlan(services, 'deleted', event, eventId)),
  'cairn.commit_status.created': planner(CommitStatusCreated, statusPlan),
};

/**
 * The plans of a message: undefined for a subject with no webhook; a problem for a message that can never give any
 * (not the subject's event, no event id), which is acknowledged after logging as redelivery would change nothing.
 */
export function planEvent(services: PayloadServices, subject: string, data: Uint8Array): ReadEvent | { problem: string } | undefined {
  const lastDot = subject.lastIndexOf('.');
  const planner = PLANNERS[subject] ?? PLANNERS[subject.slice(0, lastDot)];
  return planner?.(services, data, subject.slice(lastDot + 1));
}
