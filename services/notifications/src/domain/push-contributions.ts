/**
 * What a push counts on the pusher's heatmap. Gitea's heatmap counts the pusher's actions, and a push records
 * one action per reference it changes (services/repository/push.go `pushUpdates`, services/feed/notifier.go):
 * - a branch updated: 1 (`commit_repo`); created: 2 (`CreateRef` and `PushCommits` each record a
 *   `commit_repo`); deleted: 1 (`delete_branch`);
 * - a tag created or moved: 1 (`push_tag`); deleted: 1 (`delete_tag`);
 * - any other reference (`refs/pull/…`, `refs/notes/…`), or an update with neither an old nor a new object: 0.
 */
import type { RefUpdate } from '@cairn/proto/cairn/git/v1/events';

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

/** git's null object id (all zeros, SHA-1 or SHA-256 length), or no id at all. */
function isNullObjectId(sha: string): boolean {
  return /^0*$/.test(sha);
}

export function refContributions(update: RefUpdate): number {
  const created = isNullObjectId(update.oldSha);
  const deleted = isNullObjectId(update.newSha);
  if (created && deleted) return 0;
  if (update.ref.startsWith(BRANCH_PREFIX)) return created ? 2 : 1;
  if (update.ref.startsWith(TAG_PREFIX)) return 1;
  return 0;
}

export function pushContributions(updates: readonly RefUpdate[]): number {
  return updates.reduce((total, update) => total + refContributions(update), 0);
}
