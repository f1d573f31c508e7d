/**
 * Mergeability follows pushes and new pull requests (Gitea's AddTestPullRequestTask and its pull-request check
 * queue):
 * - `issues-git` on git-storage's stream: a push to a branch re-checks every open pull request into it (base) or
 *   from it (head, in this repository or a fork); domain/pull-check.ts also marks a pull request manually merged
 *   when the repository detects manual merges and the base branch now contains the head (with the commit that
 *   merged it, its author as the merger and its time, as Gitea's manuallyMerged).
 * - `issues-pulls` on issues' own stream: a pull request opened, reopened or given another base branch
 *   (cairn.pull_request.opened, .reopened, .edited with "base") is checked — CreatePull checks at once too; this
 *   settles the ones git-storage could not answer then, and edits of the base, which leave them "checking".
 * A check that git-storage or repos cannot answer now throws, so the bus redelivers the event later; any other
 * failure of one pull request is logged and the rest go on (the check itself records "error" where git fails).
 * Checks recompute from git, so a redelivered event changes nothing more.
 */
import { applyOnce, type Bus, type BusHandler, type BusMessage, type EventDecoder, type Subscription } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { PullRequestEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { checkPull, isTransient, repositoryById } from '../domain/pull-check';
import type { IssuesContext } from '../rpc/context';
import { findOpenPullsTouchedBy } from '../store/pull-outcomes';
import { findPullByIndex, type PullRow } from '../store/pulls';
import { readEvent } from './read-event';
import { ISSUES_STREAM, Subject } from './subjects';

/** git-storage's stream (git-storage defines it; issues binds). */
export const GIT_STREAM = 'CAIRN_GIT';
export const GIT_PUSHED = 'cairn.git.pushed';
export const GIT_CONSUMER = 'issues-git';
export const PULLS_CONSUMER = 'issues-pulls';
export const PULL_EVENTS = 'cairn.pull_request.>';

const BRANCH_PREFIX = 'refs/heads/';

/** The branch names a push changed (tags and refs/pull/* are not pull-request heads or bases). */
export function pushedBranches(event: GitPushed): string[] {
  const names = event.refUpdates.filter((update) => update.ref.startsWith(BRANCH_PREFIX)).map((update) => update.ref.slice(BRANCH_PREFIX.length));
  return [...new Set(names)].filter((name) => name !== '');
}

/** Checks each pull request, its base repository looked up once per repository. */
async function checkPulls(context: IssuesContext, pulls: readonly PullRow[], actorId: number): Promise<void> {
  const bases = new Map<number, Repository | undefined>();
  for (const pull of pulls) {
    try {
      if (!bases.has(pull.repo_id)) bases.set(pull.repo_id, await repositoryById(context, pull.repo_id));
      const base = bases.get(pull.repo_id);
      if (base === undefined) continue;
      await checkPull(context, pull, { base, actorId });
    } catch (error) {
      if (isTransient(error)) throw error;
      context.logger.error({ err: error, repo_id: pull.repo_id, index: pull.index }, 'pull request check failed');
    }
  }
}

/** Records the event as handled once the work (outside any transaction: it calls git-storage) is done. */
export function handledAfter<T extends { meta?: { eventId: string } | undefined }>(
  context: IssuesContext,
  consumer: string,
  type: EventDecoder<T>,
  work: (event: T, message: BusMessage) => Promise<void>,
): BusHandler {
  const finish = applyOnce({ db: context.db, logger: context.logger, consumer, type, apply: async () => undefined });
  return async (message: BusMessage) => {
    const event = readEvent(type, message);
    if (event !== undefined) await work(event, message);
    await finish(message);
  };
}

export function gitPushedHandler(context: IssuesContext): BusHandler {
  return handledAfter(context, GIT_CONSUMER, GitPushed, async (event) => {
    const branches = pushedBranches(event);
    if (event.repoId <= 0 || branches.length === 0) return;
    const pulls = await findOpenPullsTouchedBy(context.db.pool, event.repoId, branches);
    await checkPulls(context, pulls, event.pusherId);
  });
}

/** The pull-request events after which the pull request needs a check. */
export function needsCheck(subject: string, event: PullRequestEvent): boolean {
  if (subject === Subject.pullOpened || subject === Subject.pullReopened) return true;
  return subject === Subject.pullEdited && event.changed.includes('base');
}

export function pullEventsHandler(context: IssuesContext): BusHandler {
  return handledAfter(context, PULLS_CONSUMER, PullRequestEvent, async (event, message) => {
    if (!needsCheck(message.subject, event)) return;
    const issue = event.pull?.issue;
    if (issue === undefined || issue.repoId <= 0 || issue.index <= 0) return;
    const pull = await findPullByIndex(context.db.pool, issue.repoId, issue.index);
    if (pull !== undefined) await checkPulls(context, [pull], event.meta?.actorId ?? 0);
  });
}

export function startGitEventsConsumer(context: IssuesContext, bus: Bus): Promise<Subscription> {
  return bus.consume({ stream: GIT_STREAM, durable: GIT_CONSUMER, filterSubject: GIT_PUSHED, handler: gitPushedHandler(context) });
}

export function startPullEventsConsumer(context: IssuesContext, bus: Bus): Promise<Subscription> {
  return bus.consume({ stream: ISSUES_STREAM, durable: PULLS_CONSUMER, filterSubject: PULL_EVENTS, handler: pullEventsHandler(context) });
}
