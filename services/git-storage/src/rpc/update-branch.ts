/**
 * UpdateBranch: a pull request's "update branch" (Gitea's services/pull/update.go). The head branch (of the base
 * repository or of a fork on the same storage) takes the base branch's commits: "merge" writes a merge commit of
 * the base into the head with plumbing (git/merge.ts), "rebase" replays the head's own commits on the base
 * (git/rebase.ts). Everything happens in the head repository: for a fork, the base branch is first fetched there
 * under a temporary ref (removed afterwards). The head branch moves by compare-and-swap and the move publishes
 * cairn.git.pushed for the head repository.
 */
import { randomUUID } from 'node:crypto';
import type { UpdateBranchRequest, UpdateBranchResponse } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { commitMessage } from '../domain/commit-message';
import { publishPushed, requirePush } from '../events/pushed';
import { runGit } from '../git/command';
import { parseCommitId } from '../git/commitish';
import { identityEnvironment } from '../git/identity';
import { commitTree, mergeBase, mergeTrees, unrelatedHistories } from '../git/merge';
import { openRepository, requireRepository } from '../git/open-repository';
import { rebaseOnto } from '../git/rebase';
import { updateRefs } from '../git/ref-update';
import { branchRef } from '../git/refs';
import { peelToCommits } from '../git/revisions';
import type { GitStorageContext } from './context';
import { branchNotFound, branchTip, mergeConflict, scratchRoot } from './merge-support';

type UpdateStyle = 'merge' | 'rebase';

/** What the update writes, checked before any git runs. */
interface UpdatePlan {
  style: UpdateStyle;
  baseBranch: string;
  headBranch: string;
  expectedHead: string | undefined;
  message: string;
  /** "merge": GIT_AUTHOR_* and GIT_COMMITTER_*; "rebase": GIT_COMMITTER_* only (the replayed commits keep their authors). */
  identity: NodeJS.ProcessEnv;
}

function planUpdate(request: UpdateBranchRequest): UpdatePlan {
  if (request.style !== 'merge' && request.style !== 'rebase') {
    throw CairnError.invalid(`unknown update style ${JSON.stringify(request.style)}`, { reason: 'invalid_style' });
  }
  const style: UpdateStyle = request.style;
  branchRef(request.baseBranch);
  branchRef(request.headBranch);
  const expectedHead = request.expectedHeadCommitId === '' ? undefined : parseCommitId(request.expectedHeadCommitId, 'expected_head_commit_id');
  const now = new Date();
  if (style === 'rebase') {
    return { style, baseBranch: request.baseBranch, headBranch: request.headBranch, expectedHead, message: '', identity: identityEnvironment('COMMITTER', request.committer, now) };
  }
  if (request.message.trim() === '') throw CairnError.invalid('a merge needs a commit message', { reason: 'message_required' });
  const identity = { ...identityEnvironment('AUTHOR', request.committer, now), ...identityEnvironment('COMMITTER', request.committer, now) };
  return { style, baseBranch: request.baseBranch, headBranch: request.headBranch, expectedHead, message: commitMessage(request.message, undefined), identity };
}

/** The base branch's tip, readable in `headDir`; `release` drops what was fetched for it (a temporary ref). */
interface BaseInHead {
  sha: string;
  release(): Promise<void>;
}

async function baseInHead(baseDir: string, headDir: string, baseBranch: string): Promise<BaseInHead> {
  if (baseDir === headDir) return { sha: await branchTip(baseDir, baseBranch), release: async () => undefined };
  // A fork on the same storage: the base branch comes over git's local transport, under a ref of its own so that
  // concurrent updates of the fork do not see each other's.
  const tmpRef = `refs/cairn/update/${randomUUID()}`;
  const release = async () => {
    await runGit(['update-ref', '-d', tmpRef], { gitDir: headDir, okExitCodes: [0, 1] });
  };
  const fetched = await runGit(
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', baseDir, `+${branchRef(baseBranch)}:${tmpRef}`],
    { gitDir: headDir, okExitCodes: [0, 1, 128] },
  );
  if (fetched.exitCode !== 0) {
    await release();
    const [exists] = await peelToCommits(baseDir, [branchRef(baseBranch)]);
    if (exists === undefined) throw branchNotFound(baseBranch);
    throw CairnError.internal('fetching the base branch failed', { cause: new Error(fetched.stderr.trim()) });
  }
  const [sha] = await peelToCommits(headDir, [tmpRef]);
  if (sha === undefined) {
    await release();
    throw CairnError.internal(`${tmpRef} is missing after the fetch`);
  }
  return { sha, release };
}

/** The head branch's new tip (new objects only; no ref moves). */
async function writeUpdate(headDir: string, scratch: string, plan: UpdatePlan, tips: { head: string; base: string }): Promise<string> {
  if (plan.style === 'rebase') {
    const rebased = await rebaseOnto(headDir, scratch, tips.head, tips.base, plan.identity);
    if (!rebased.ok) throw mergeConflict(rebased.conflicts);
    return rebased.tip;
  }
  // The head is "ours": its tree is the merge's first side, as `git merge <base>` run on the head branch.
  const merged = await mergeTrees(headDir, tips.head, tips.base);
  if (merged.conflicts.length > 0) throw mergeConflict(merged.conflicts);
  return commitTree(headDir, { tree: merged.tree, parents: [tips.head, tips.base], message: plan.message, identity: plan.identity });
}

export async function updateBranch(context: GitStorageContext, request: UpdateBranchRequest): Promise<UpdateBranchResponse> {
  const plan = planUpdate(request);
  const push = requirePush(request.push);
  const headRepository = requireRepository(request.headRepository);
  const baseDir = await openRepository(context.root, request.baseRepository);
  const headDir = await openRepository(context.root, headRepository);
  const headSha = await branchTip(headDir, plan.headBranch);
  if (plan.expectedHead !== undefined && plan.expectedHead !== headSha) {
    throw CairnError.precondition(`head is ${headSha}, not ${plan.expectedHead}`, { reason: 'head_out_of_date' });
  }
  const base = await baseInHead(baseDir, headDir, plan.baseBranch);
  try {
    const common = await mergeBase(headDir, headSha, base.sha);
    if (common === undefined) throw unrelatedHistories();
    if (common === base.sha) throw CairnError.precondition(`branch "${plan.headBranch}" already contains "${plan.baseBranch}"`, { reason: 'up_to_date' });
    const newSha = await writeUpdate(headDir, scratchRoot(context.root, headRepository), plan, { head: headSha, base: base.sha });
    const update = { ref: branchRef(plan.headBranch), oldSha: headSha, newSha };
    const moved = await updateRefs(headDir, [update]);
    if (!moved.ok) {
      throw CairnError.precondition(`branch "${plan.headBranch}" moved while updating`, { reason: 'head_out_of_date', cause: new Error(moved.stderr) });
    }
    await publishPushed(context, { repository: headRepository, push, refUpdates: [update] });
    return { oldHeadCommitId: headSha, newHeadCommitId: newSha, baseCommitId: base.sha };
  } finally {
    await base.release();
  }
}
