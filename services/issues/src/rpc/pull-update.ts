/**
 * UpdatePull (Gitea's routers/api/v1/repo/pull.go UpdatePullRequest with services/pull/update.go Update and
 * IsUserAllowedToUpdate): the head branch takes the base branch's commits, by a merge commit ("merge", the default
 * and Gitea's answer to any other style) or by replaying the head's commits on the base ("rebase").
 *
 * - A merged or closed pull request is FAILED_PRECONDITION (Gitea's 422).
 * - Who may (IsUserAllowedToUpdate): whoever may push to the head branch (code write on the head repository, or the
 *   head branch's protection rule); rebasing rewrites the branch, so it needs force-push. When the poster allows
 *   maintainer edits, whoever may merge into the base branch inherits the poster's push and force-push rights on
 *   the head branch. Rebasing also needs the base repository's `allow_rebase_update`. Anyone else: a bodiless
 *   PERMISSION_DENIED (Gitea's bare 403).
 * - git-storage's UpdateBranch does the git work in the head repository, as the updater, and publishes
 *   cairn.git.pushed; the pull request is re-checked right away (the consumer of that event re-checks it too).
 *   A head that already contains the base is FAILED_PRECONDITION with Gitea's "HeadBranch of PR <n> is up to
 *   date"; conflicts are ABORTED "merge failed because of conflict" / "rebase failed because of conflict".
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { UpdatePullRequest, UpdatePullResponse } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { actorOf, CairnError, Code } from '@cairn/rpc';
import { type Access, accessOf, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { readablePull } from '../domain/pull-access';
import { checkPull, gitRepositoryOfRepo, internalActor, repositoryById } from '../domain/pull-check';
import { toPullRequest, type PullRow } from '../store/pulls';
import type { IssuesContext } from './context';
import { guard } from './guard';

type UpdateStyle = 'merge' | 'rebase';

/** What a user may do to a branch (Gitea's isUserAllowedToPushOrForcePushInRepoBranch). */
interface BranchRights {
  push: boolean;
  forcePush: boolean;
  /** Merge into it (the base branch's question). */
  merge: boolean;
}

const NO_RIGHTS: BranchRights = { push: false, forcePush: false, merge: false };

/** `user`'s rights on `branch` of repository `repoId`: the protection rule's, else code write's; none when unreadable. */
async function branchRights(context: IssuesContext, user: Actor | undefined, repoId: number, branch: string): Promise<BranchRights> {
  if (user === undefined) return NO_RIGHTS;
  try {
    const { matches } = await context.repos.protections.matchBranchProtection({ viewer: user, repoId, branches: [branch] });
    const match = matches[0];
    return { push: match?.userCanPush === true, forcePush: match?.userCanForcePush === true, merge: match?.userCanMerge === true };
  } catch (error) {
    if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.PERMISSION_DENIED)) return NO_RIGHTS;
    throw error;
  }
}

/** The poster as repos should judge them (their account's admin and restricted flags); undefined when gone. */
async function posterActor(context: IssuesContext, posterId: number): Promise<Actor | undefined> {
  const { users } = await context.users.batchGetUsers({ ids: [posterId], viewer: internalActor() });
  const user = users.find((candidate) => candidate.id === posterId);
  return user === undefined ? undefined : { userId: user.id, isAdmin: user.isAdmin, isRestricted: user.restricted };
}

/** Gitea's IsUserAllowedToUpdate: may the updater update by merge, by rebase. */
async function allowedUpdates(context: IssuesContext, access: Access, pull: PullRow, head: Repository): Promise<{ merge: boolean; rebase: boolean }> {
  const updater = actorOf(access.viewer);
  const own = await branchRights(context, updater, head.id, pull.head_branch);
  let push = own.push;
  let forcePush = own.forcePush;
  if (pull.allow_maintainer_edit && (!push || !forcePush)) {
    const base = await branchRights(context, updater, access.repository.id, pull.base_branch);
    if (base.merge) {
      const poster = await branchRights(context, await posterActor(context, pull.poster_id), head.id, pull.head_branch);
      push ||= poster.push;
      forcePush ||= poster.forcePush;
    }
  }
  return { merge: push, rebase: forcePush && access.repository.allowRebaseUpdate };
}

/** git-storage's UpdateBranch refusals as Gitea answers them. */
function updateFailure(error: unknown, style: UpdateStyle, index: number): unknown {
  if (!(error instanceof CairnError)) return error;
  if (error.reason === 'merge_conflict') return new CairnError(Code.ABORTED, `${style} failed because of conflict`, { reason: 'merge_conflict', cause: error });
  if (error.reason === 'up_to_date') return CairnError.precondition(`HeadBranch of PR ${index} is up to date`, { reason: 'up_to_date', cause: error });
  if (error.reason === 'head_out_of_date') return new CairnError(Code.ABORTED, 'head out of date', { reason: 'head_out_of_date', cause: error });
  return error;
}

export function updatePull(context: IssuesContext, request: UpdatePullRequest): Promise<UpdatePullResponse> {
  return guard(() => update(context, request));
}

async function update(context: IssuesContext, request: UpdatePullRequest): Promise<UpdatePullResponse> {
  const access = accessOf(request.scope);
  const pull = await readablePull(context.db.pool, access, request.index);
  const updaterId = requireSignedIn(access);
  requireNotArchived(access);
  if (pull.has_merged) throw CairnError.precondition('The PR is already merged', { reason: 'pull_merged' });
  if (pull.is_closed) throw CairnError.precondition('The PR is closed', { reason: 'pull_closed' });
  const base = access.repository;
  const head = pull.head_repo_id === base.id ? base : await repositoryById(context, pull.head_repo_id);
  if (head === undefined) throw CairnError.precondition('the head repository does not exist', { reason: 'head_repo_gone' });

  const style: UpdateStyle = request.style === 'rebase' ? 'rebase' : 'merge';
  const allowed = await allowedUpdates(context, access, pull, head);
  if (!allowed[style]) throw CairnError.denied('');
  if (request.updaterName.trim() === '' || request.updaterEmail.trim() === '') {
    throw CairnError.invalid("the updater's name and e-mail are required", { reason: 'updater_required' });
  }

  try {
    await context.git.merge.updateBranch({
      baseRepository: gitRepositoryOfRepo(base),
      baseBranch: pull.base_branch,
      headRepository: gitRepositoryOfRepo(head),
      headBranch: pull.head_branch,
      style,
      // Gitea's default update message.
      message: `Merge branch '${pull.base_branch}' into ${pull.head_branch}`,
      committer: { name: request.updaterName.trim(), email: request.updaterEmail.trim(), when: new Date(), timezone: '+0000' },
      expectedHeadCommitId: '',
      push: { pusherId: updaterId, repoOwnerId: head.ownerId, repoPrivate: head.private, pusherName: request.updaterLogin },
    }, { deadlineMs: context.config.rpc.gitWriteDeadlineMs });
  } catch (error) {
    throw updateFailure(error, style, pull.index);
  }

  // The new head now rather than when the cairn.git.pushed consumer gets to it; a failure leaves that to it.
  let row = pull;
  try {
    row = await checkPull(context, pull, { base, actorId: updaterId });
  } catch (error) {
    context.logger.warn({ err: error, repo_id: base.id, index: pull.index }, 'pull request not checked after its update');
  }
  return { pull: await toPullRequest(context.db.pool, row) };
}
