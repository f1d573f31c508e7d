/**
 * Gitea's issue-list parameters (routers/api/v1/repo/issue.go ListIssues and SearchIssues) as the stores take them:
 * state and type as the is_closed / is_pull values listed, page and limit as rows to skip and take, and whether
 * the request is the plain list (state and type only) that per-block counters serve.
 */
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import type { IssueFilter } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { IssueConditions, NamedFilters } from '../store/issue-filter';

/** `state`: "closed", "all", anything else open (Gitea's default). */
export function statesOf(state: string): boolean[] {
  if (state === 'closed') return [true];
  if (state === 'all') return [false, true];
  return [false];
}

/** `type`: "issues", "pulls", anything else both. */
export function kindsOf(type: string): boolean[] {
  if (type === 'issues') return [false];
  if (type === 'pulls') return [true];
  return [false, true];
}

/** Gitea's `[api] DEFAULT_PAGING_NUM`, for a request without a positive limit. */
export const DEFAULT_LIMIT = 30;
/** No page is longer than this, whatever a caller asks (the gateway applies `[api] MAX_RESPONSE_ITEMS` first). */
export const MAX_LIMIT = 1000;

export interface RowWindow {
  skip: number;
  limit: number;
}

/** Page p of `limit` rows as rows to skip; a page past any list skips everything (never an unsafe number). */
export function rowWindow(page: PageRequest | undefined): RowWindow {
  const limit = page === undefined || page.limit <= 0 ? DEFAULT_LIMIT : Math.min(page.limit, MAX_LIMIT);
  const skip = (Math.max(page?.page ?? 1, 1) - 1) * limit;
  return { skip: Math.min(skip, Number.MAX_SAFE_INTEGER), limit };
}

/** The filter's parts, trimmed: label names and milestone references still to be resolved, and the rest. */
export interface RequestedFilter {
  /** Every condition but labels and milestones (unset until resolved). */
  conditions: IssueConditions;
  named: NamedFilters;
}

function trimmed(parts: readonly string[] | undefined): string[] {
  return (parts ?? []).map((part) => part.trim()).filter((part) => part !== '');
}

/** The filter's conditions; state and kind as the caller decided them from what the viewer may read. */
export function requestedFilter(filter: IssueFilter | undefined, states: boolean[], kinds: boolean[]): RequestedFilter {
  return {
    named: { labels: trimmed(filter?.labels), milestones: trimmed(filter?.milestones) },
    conditions: {
      states,
      kinds,
      labels: undefined,
      milestoneIds: undefined,
      // Gitea drops a keyword with a NUL byte.
      keyword: (filter?.q ?? '').includes('\u0000') ? '' : (filter?.q ?? '').trim(),
      since: filter?.since,
      before: filter?.before,
      posterId: Math.max(filter?.createdById ?? 0, 0),
      assigneeId: Math.max(filter?.assignedId ?? 0, 0),
      mentionedId: Math.max(filter?.mentionedId ?? 0, 0),
      reviewRequestedId: Math.max(filter?.reviewRequestedId ?? 0, 0),
      // Filled in by the caller from accounts (rpc/review-requests.ts reviewRequestedTeams).
      reviewRequestedTeamIds: [],
      reviewedId: Math.max(filter?.reviewedId ?? 0, 0),
    },
  };
}

/** Only state and kind narrow the list: the per-block counters can serve it. */
export function isPlain(conditions: IssueConditions): boolean {
  return (
    conditions.labels === undefined &&
    conditions.milestoneIds === undefined &&
    conditions.keyword === '' &&
    conditions.since === undefined &&
    conditions.before === undefined &&
    conditions.posterId === 0 &&
    conditions.assigneeId === 0 &&
    conditions.mentionedId === 0 &&
    conditions.reviewRequestedId === 0 &&
    conditions.reviewedId === 0
  );
}
