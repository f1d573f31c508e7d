/**
 * The `repos-git` consumer: after a push, copies git-storage's view of the repository (empty, size, branch count)
 * into its row, and — on the first push into an empty repository whose default branch was not pushed — makes the
 * first pushed branch the default, as Gitea does. When the push moved the default branch, the licences of its
 * licence files are detected again (Gitea's services/repository/license.go, updated on default-branch pushes).
 * Releases whose tag the push deleted (and that is still gone) become drafts without a commit.
 * Reading the state afresh (under the row's lock) makes every delivery idempotent and lets no delivery write an
 * older view than the last one.
 */
import { type Bus, type BusHandler, type Subscription, decodeEvent } from '@cairn/bus';
import { GitPushed, type RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import { CairnError, Code } from '@cairn/rpc';
import type { ReposContext } from '../rpc/context';
import { gitRepository } from '../rpc/repository-message';
import { recountReleases, unpublishReleasesOfTags } from '../store/releases';
import { lockRepository, updateRepository, type RepoChanges } from '../store/repositories';
import { GIT_CONSUMER, GIT_STREAM, GitSubject } from './subjects';

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
const ZERO_SHA = /^0+$/;

/** Branches the push created or moved, in the order git reported them. */
function pushedBranches(updates: readonly RefUpdate[]): string[] {
  return updates.filter((update) => update.ref.startsWith(BRANCH_PREFIX) && !ZERO_SHA.test(update.newSha)).map((update) => update.ref.slice(BRANCH_PREFIX.length));
}

/** Tags the push deleted. */
function deletedTags(updates: readonly RefUpdate[]): string[] {
  return updates.filter((update) => update.ref.startsWith(TAG_PREFIX) && ZERO_SHA.test(update.newSha)).map((update) => update.ref.slice(TAG_PREFIX.length));
}

/** Whether the tag exists now (a later push may have made it again). */
async function tagExists(context: ReposContext, repository: { storage: string; repoId: number }, name: string): Promise<boolean> {
  try {
    await context.git.refs.getTag({ repository, name });
    return true;
  } catch (error) {
    if (error instanceof CairnError && error.code === Code.NOT_FOUND) return false;
    throw error;
  }
}

export function gitPushedHandler(context: ReposContext): BusHandler {
  return async (message) => {
    let event: GitPushed;
    try {
      event = decodeEvent(GitPushed, message.data);
    } catch (error) {
      context.logger.error({ err: error, subject: message.subject, event_id: message.id }, 'dropping an unreadable git event');
      return;
    }
    // The row stays locked from before git-storage is read until the copy commits: of two pushes handled at once,
    // the one that reads later writes later, so an older view never overwrites a newer one.
    await context.db.pool.transaction(async (tx) => {
      const repo = await lockRepository(tx, event.repoId);
      if (repo === undefined) return;
      const repository = gitRepository(repo);
      const info = await context.git.repositories.getRepositoryInfo({ repository });
      const changes: RepoChanges = { isEmpty: info.empty, size: info.sizeKib, branchCount: info.branchCount };
      const pushed = pushedBranches(event.refUpdates);
      if (repo.isEmpty && !info.empty && pushed.length > 0 && !pushed.includes(repo.defaultBranch)) {
        await context.git.repositories.setDefaultBranch({ repository, branch: pushed[0] });
        changes.defaultBranch = pushed[0];
      }
      const defaultBranch = changes.defaultBranch ?? repo.defaultBranch;
      if (pushed.includes(defaultBranch)) {
        changes.licenses = (await context.git.analysis.detectLicenses({ repository, revision: defaultBranch })).licenses;
      }
      await updateRepository(tx, repo.id, changes);
      // A release whose tag a push deleted goes back to being a draft, as in Gitea's PushUpdateDeleteTag.
      const gone: string[] = [];
      for (const tag of deletedTags(event.refUpdates)) if (!(await tagExists(context, repository, tag))) gone.push(tag);
      if (gone.length > 0 && (await unpublishReleasesOfTags(tx, repo.id, gone)) > 0) await recountReleases(tx, repo.id);
    });
  };
}

export function startGitConsumer(context: ReposContext, options: { bus: Bus; stream?: string; durable?: string }): Promise<Subscription> {
  return options.bus.consume({
    stream: options.stream ?? GIT_STREAM,
    durable: options.durable ?? GIT_CONSUMER,
    filterSubject: GitSubject.pushed,
    handler: gitPushedHandler(context),
  });
}
