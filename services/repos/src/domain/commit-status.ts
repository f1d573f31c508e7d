/**
 * Commit statuses as Gitea 1.26 has them (modules/commitstatus, models/git/commit_status.go): the states, how
 * the latest status of every context combines into one, the list orders and filters, and the context hash
 * that groups statuses by context.
 */
import { createHash } from 'node:crypto';
import { CairnError } from '@cairn/rpc';

export const COMMIT_STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning', 'skipped'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];
export type CombinedState = 'pending' | 'success' | 'failure';

export function isCommitStatusState(value: string): value is CommitStatusState {
  return (COMMIT_STATUS_STATES as readonly string[]).includes(value);
}

/** The state a new status is created with; INVALID_ARGUMENT reason status_state_invalid otherwise. */
export function parseCommitStatusState(value: string): CommitStatusState {
  if (!isCommitStatusState(value)) {
    throw CairnError.invalid(`invalid commit status state: ${JSON.stringify(value)}`, { reason: 'status_state_invalid' });
  }
  return value;
}

/**
 * `CommitStatusStates.Combine`: any error, failure or warning fails (Gitea 1.26 treats warning as failure,
 * go-gitea/gitea#37048); success when every state is success or skipped; pending otherwise, none included.
 */
export function combineStates(states: readonly CommitStatusState[]): CombinedState {
  if (states.some((state) => state === 'error' || state === 'failure' || state === 'warning')) return 'failure';
  if (states.length > 0 && states.every((state) => state === 'success' || state === 'skipped')) return 'success';
  return 'pending';
}

/** The `?state=` filter: a known state filters, anything else (empty included) does not (Gitea ignores it). */
export function stateFilter(value: string): CommitStatusState | undefined {
  return isCommitStatusState(value) ? value : undefined;
}

export type StatusColumn = 'created' | 'updated' | 'index';
export interface StatusOrder {
  column: StatusColumn;
  descending: boolean;
}

/**
 * `CommitStatusOptions.ToOrders`: newest first by default. `leastindex` sorts by index descending and
 * `highestindex` ascending — the names read backwards, but that is what Gitea answers.
 */
export function statusOrder(sort: string): StatusOrder {
  switch (sort) {
    case 'oldest':
      return { column: 'created', descending: false };
    case 'recentupdate':
      return { column: 'updated', descending: true };
    case 'leastupdate':
      return { column: 'updated', descending: false };
    case 'leastindex':
      return { column: 'index', descending: true };
    case 'highestindex':
      return { column: 'index', descending: false };
    default:
      return { column: 'created', descending: true };
  }
}

/** `hashCommitStatusContext`: statuses are grouped by the SHA-1 of their context. */
export function contextHash(context: string): string {
  return createHash('sha1').update(context).digest('hex');
}

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The gateway resolves refs to the full commit id before calling; anything else is a caller's mistake. */
export function assertFullSha(sha: string): void {
  if (!FULL_SHA.test(sha)) throw CairnError.invalid(`not a full commit id: ${JSON.stringify(sha)}`, { reason: 'sha_invalid' });
}

/** What a new status stores: Gitea trims the text fields and keeps an empty context as it is. */
export interface NewStatusFields {
  state: CommitStatusState;
  targetUrl: string;
  description: string;
  context: string;
}

export function newStatusFields(input: { state: string; targetUrl: string; description: string; context: string }): NewStatusFields {
  return {
    state: parseCommitStatusState(input.state),
    targetUrl: input.targetUrl.trim(),
    description: input.description.trim(),
    context: input.context.trim(),
  };
}
