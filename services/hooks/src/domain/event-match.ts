/**
 * Which hook wants which payload: Gitea's event choice (routers/api/v1/utils/hook.go `issuesHook`/`pullHook` turn
 * the API's event names into models/webhook HookEvents; models/webhook/webhook.go `EventCheckers` maps each fine
 * event type to its `HasXxxEvent`) and its branch filter (services/webhook/webhook.go `checkBranch`).
 */
import type { EventType } from '@cairn/events';
import { globMatcher } from '@cairn/text';

/**
 * Gitea's fine event types (modules/webhook/type.go HookEventType): X-Gitea-Event-Type, and the last token of the
 * public event stream's subjects (@cairn/events' catalogue).
 */
export type HookEventType = EventType;

/**
 * The event types each API event name turns on. `issues` and `pull_request` turn on every sub-event of their kind
 * (`issuesHook`/`pullHook`: the kind's name or the sub-event's own); `issues_only` and `pull_request_only` the bare
 * kind. A review comment is checked by HasPullRequestCommentEvent, so `pull_request_comment` turns it on, and
 * `pull_request_review` turns on approvals and rejections only.
 */
const TURNS_ON: Readonly<Record<string, readonly HookEventType[]>> = {
  create: ['create'],
  delete: ['delete'],
  fork: ['fork'],
  push: ['push'],
  issues: ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'],
  issues_only: ['issues'],
  issue_assign: ['issue_assign'],
  issue_label: ['issue_label'],
  issue_milestone: ['issue_milestone'],
  issue_comment: ['issue_comment'],
  pull_request: [
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
  ],
  pull_request_only: ['pull_request'],
  pull_request_assign: ['pull_request_assign'],
  pull_request_label: ['pull_request_label'],
  pull_request_milestone: ['pull_request_milestone'],
  pull_request_comment: ['pull_request_comment', 'pull_request_review_comment'],
  pull_request_review: ['pull_request_review_approved', 'pull_request_review_rejected'],
  pull_request_sync: ['pull_request_sync'],
  pull_request_review_request: ['pull_request_review_request'],
  wiki: ['wiki'],
  repository: ['repository'],
  release: ['release'],
  status: ['status'],
};

/** The hook as matching needs it. */
export interface MatchableHook {
  type: string;
  /** Event names as the API took them (case-insensitive, Gitea's `util.SliceContainsString(…, true)`). */
  events: readonly string[];
  branchFilter: string;
}

/** What matching needs of a payload. */
export interface PayloadFacts {
  eventType: HookEventType;
  /** The branch a push, create or delete is about; undefined for tags and every other event (no filter then). */
  branch?: string;
  /** A push payload's commit count: Gitea sends none-commit pushes to gitea and gogs hooks only. */
  pushCommits?: number;
}

/** Whether the hook chose the event type. */
export function hookChoosesEvent(events: readonly string[], eventType: HookEventType): boolean {
  return events.some((name) => TURNS_ON[name.toLowerCase()]?.includes(eventType) ?? false);
}

/**
 * Gitea's `checkBranch`: an empty filter or `*` takes every branch; otherwise the filter is a gobwas glob compiled
 * with no separators (so `*` crosses `/`), and a filter that does not compile takes nothing.
 */
export function branchPasses(filter: string, branch: string): boolean {
  if (filter === '' || filter === '*') return true;
  return globMatcher(filter, { separators: '', invalid: 'nothing' })(branch);
}

/** Gitea's PrepareWebhook checks, in its order: the event, push with no commits to chat types, the branch filter. */
export function hookWantsPayload(hook: MatchableHook, facts: PayloadFacts): boolean {
  if (!hookChoosesEvent(hook.events, facts.eventType)) return false;
  // "Avoid sending '0 new commits' to non-integration relevant webhooks" (services/webhook/webhook.go).
  if (facts.eventType === 'push' && facts.pushCommits === 0 && hook.type !== 'gitea' && hook.type !== 'gogs') return false;
  return facts.branch === undefined || branchPasses(hook.branchFilter, facts.branch);
}

/**
 * X-Gitea-Event for a fine type (services/webhook/deliver.go via modules/webhook/type.go `Event()`): sub-events of
 * issues and pull requests go under their kind, comments under issue_comment, reviews under their own names.
 */
export function coarseEvent(eventType: HookEventType): string {
  switch (eventType) {
    case 'issue_assign':
    case 'issue_label':
    case 'issue_milestone':
      return 'issues';
    case 'pull_request_assign':
    case 'pull_request_label':
    case 'pull_request_milestone':
    case 'pull_request_sync':
    case 'pull_request_review_request':
      return 'pull_request';
    case 'pull_request_comment':
      return 'issue_comment';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return eventType;
  }
}
