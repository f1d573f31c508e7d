import type { PayloadKind, PayloadKinds } from './payloads';

/**
 * Every event type of the stream: Gitea's fine webhook event types (modules/webhook/type.go HookEventType, the
 * `X-Gitea-Event-Type` value), which are also the last token of the subject. The hooks service's HookEventType is
 * this type.
 */
export const EVENT_TYPES = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
  'pull_request_sync',
  'pull_request_review_request',
  'wiki',
  'repository',
  'release',
  'status',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event types Cairn emits: all but `wiki` (Cairn has no wiki). Each is a subject of the public stream. */
export type PublicEventType = Exclude<EventType, 'wiki'>;

/** An event type of the public stream, as consumers see it. */
export interface PublicEventSpec {
  /** The fine event type (`X-Gitea-Event-Type`), the subject's last token. */
  type: PublicEventType;
  /** The coarse event (`X-Gitea-Event`, Gitea's HookEventType.Event()). */
  event: string;
  /** The payload's type in payloads.ts, and its schema's name. */
  payload: PayloadKind;
  /** The payload's `action` values for this type, each a `ce-type` `io.cairn.<type>.<action>`; empty: no action. */
  actions: readonly string[];
  description: string;
}

type ActionOf<K extends PayloadKind> = PayloadKinds[K] extends { action: infer A extends string } ? A : never;

/** One entry, its actions checked against its payload type's `action`. */
function spec<K extends PayloadKind>(payload: K, event: string, actions: readonly ActionOf<K>[], description: string): Omit<PublicEventSpec, 'type'> {
  return { event, payload, actions, description };
}

const ISSUE_LIFECYCLE = ['opened', 'edited', 'closed', 'reopened', 'deleted'] as const;
const ASSIGNMENT = ['assigned', 'unassigned'] as const;
const LABELLING = ['label_updated', 'label_cleared'] as const;
const MILESTONING = ['milestoned', 'demilestoned'] as const;
const COMMENTING = ['created', 'edited', 'deleted'] as const;

/**
 * What the hooks service emits per type (services/hooks/src/payloads: which change gives which type and action), the
 * coarse event as services/hooks/src/domain/event-match.ts `coarseEvent` names it.
 */
const CATALOGUE: Readonly<Record<PublicEventType, Omit<PublicEventSpec, 'type'>>> = {
  create: spec('CreatePayload', 'create', [], 'A branch or tag was created.'),
  delete: spec('DeletePayload', 'delete', [], 'A branch or tag was deleted.'),
  fork: spec('ForkPayload', 'fork', [], 'The repository was forked (sent about the original; `repository` is the fork).'),
  push: spec('PushPayload', 'push', [], 'Commits were pushed to a branch, or a tag was pushed.'),
  issues: spec('IssuePayload', 'issues', ISSUE_LIFECYCLE, 'An issue was opened, edited, closed, reopened or deleted.'),
  issue_assign: spec('IssuePayload', 'issues', ASSIGNMENT, 'A user was assigned to or unassigned from an issue (one event each).'),
  issue_label: spec('IssuePayload', 'issues', LABELLING, "An issue's labels changed."),
  issue_milestone: spec('IssuePayload', 'issues', MILESTONING, "An issue's milestone was set or cleared."),
  issue_comment: spec('IssueCommentPayload', 'issue_comment', COMMENTING, 'A comment on an issue was created, edited or deleted.'),
  pull_request: spec('PullRequestPayload', 'pull_request', ISSUE_LIFECYCLE, 'A pull request was opened, edited, closed (merged: `pull_request.merged`), reopened or deleted.'),
  pull_request_assign: spec('PullRequestPayload', 'pull_request', ASSIGNMENT, 'A user was assigned to or unassigned from a pull request.'),
  pull_request_label: spec('PullRequestPayload', 'pull_request', LABELLING, "A pull request's labels changed."),
  pull_request_milestone: spec('PullRequestPayload', 'pull_request', MILESTONING, "A pull request's milestone was set or cleared."),
  pull_request_comment: spec('IssueCommentPayload', 'issue_comment', COMMENTING, 'A comment on a pull request was created, edited or deleted.'),
  pull_request_review_approved: spec('PullRequestPayload', 'pull_request_approved', ['reviewed'], 'A pull request was approved (`review`).'),
  pull_request_review_rejected: spec('PullRequestPayload', 'pull_request_rejected', ['reviewed'], 'A review requested changes to a pull request (`review`).'),
  pull_request_review_comment: spec('PullRequestPayload', 'pull_request_comment', ['reviewed'], 'A review commented on a pull request (`review`).'),
  pull_request_sync: spec('PullRequestPayload', 'pull_request', ['synchronized'], "A pull request's head branch was updated."),
  pull_request_review_request: spec(
    'PullRequestPayload',
    'pull_request',
    ['review_requested', 'review_request_removed'],
    'A review was requested from a user, or the request removed (`requested_reviewer`, one event each).',
  ),
  repository: spec('RepositoryPayload', 'repository', ['created', 'deleted'], 'A repository was created (or forked into an organization) or deleted.'),
  release: spec('ReleasePayload', 'release', ['published', 'updated', 'deleted'], 'A release was published, updated or deleted (drafts give none).'),
  status: spec('CommitStatusPayload', 'status', [], 'A commit status was created.'),
};

/** The public catalogue, in EVENT_TYPES order. */
export const PUBLIC_EVENTS: readonly PublicEventSpec[] = EVENT_TYPES.flatMap((type) => (type === 'wiki' ? [] : [{ type, ...CATALOGUE[type] }]));

/** The spec of an emitted event type; undefined for one Cairn never emits. */
export function publicEventSpec(type: string): PublicEventSpec | undefined {
  return PUBLIC_EVENTS.find((entry) => entry.type === type);
}
