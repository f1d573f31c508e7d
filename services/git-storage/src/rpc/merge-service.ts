/**
 * MergeService: what pull requests need of git. Comparisons read (`rev-list`, `diff-tree`, `diff`,
 * `format-patch`); merges write new commits with plumbing (git/merge.ts: `merge-tree --write-tree` and
 * `commit-tree`) or git's own rebase in a temporary worktree, then move the base branch with a compare-and-swap
 * and publish cairn.git.pushed, like every other ref move of the API.
 */
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import type { MergeRequest, MergeServiceService, Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import { commitMessage } from '../domain/commit-message';
import { type MergeStyle, parseMergeStyle, replaysCommits, writesMergeCommit } from '../domain/merge-style';
import { publishPushed, requirePush } from '../events/pushed';
import { runGit } from '../git/command';
import { commitishSpec, parseCommitId, resolveCommitishes } from '../git/commitish';
import { changedFilesSince, countCommitsBetween, diffCommand, listCommitsBetween, parseDiffFormat } from '../git/compare';
import { identityEnvironment } from '../git/identity';
import { addStats, readCommits } from '../git/log';
import { type CommitSigning, commitTree, firstMergeOnPath, isAncestor, mergeBase, mergeTrees, treeOf, unrelatedHistories } from '../git/merge';
import { openRepository, requireRepository } from '../git/open-repository';
import { rebaseOnto } from '../git/rebase';
import { findRef, pageOf } from '../git/ref-list';
import { updateRefs } from '../git/ref-update';
import { branchRef } from '../git/refs';
import { peelToCommits } from '../git/revisions';
import { streamGit } from '../git/stream';
import { addVerifications } from './commit-verification';
import type { GitStorageContext } from './context';
import { mergeSigner, signedPlan } from './merge-signing';
import { branchNotFound, branchTip, mergeConflict, scratchRoot } from './merge-support';
import { importPullHeads } from './pull-heads-import';
import { updateBranch } from './update-branch';

/** Validates both sides before any git runs, then resolves them (NOT_FOUND for one that names nothing). */
async function resolveRange(gitDir: string, base: string, head: string): Promise<{ base: string; head: string }> {
  const specs = [
    { spec: commitishSpec(base, 'base'), value: base },
    { spec: commitishSpec(head, 'head'), value: head },
  ];
  const [baseSha = '', headSha = ''] = await resolveCommitishes(gitDir, specs);
  return { base: baseSha, head: headSha };
}

/** 1-based page and limit (0: everything); INVALID_ARGUMENT for negative numbers. */
function pageWindow(page: PageRequest | undefined): { page: number; limit: number } {
  const number = page?.page ?? 0;
  const limit = page?.limit ?? 0;
  if (number < 0 || limit < 0) throw CairnError.invalid('page and limit must not be negative', { reason: 'invalid_page' });
  return { page: Math.max(number, 1), limit };
}

export function createMergeService(context: GitStorageContext): AsyncServiceOf<typeof MergeServiceService> {
  const open = (repository: Repository | undefined) => openRepository(context.root, repository);

  return {
    importPullHeads: (request, ctx) => importPullHeads(context, request, ctx.signal),

    async syncPullHead(request) {
      if (!Number.isSafeInteger(request.index) || request.index < 1) {
        throw CairnError.invalid(`invalid pull request index ${request.index}`, { reason: 'invalid_index' });
      }
      const headRef = branchRef(request.headBranch);
      const pullRef = `refs/pull/${request.index}/head`;
      const baseDir = await open(request.base);
      const headDir = await open(requireRepository(request.head));
      const branch = await findRef(headDir, headRef);
      if (branch === undefined) throw branchNotFound(request.headBranch);
      if (headDir === baseDir) {
        await runGit(['update-ref', '--no-deref', pullRef, branch.sha], { gitDir: baseDir });
        return { headCommitId: branch.sha };
      }
      // A fork on the same storage: its objects come over git's local transport.
      const fetched = await runGit(
        ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', headDir, `+${headRef}:${pullRef}`],
        { gitDir: baseDir, okExitCodes: [0, 1, 128] },
      );
      if (fetched.exitCode !== 0) {
        // The branch may have been deleted since it was looked up.
        if ((await findRef(headDir, headRef)) === undefined) throw branchNotFound(request.headBranch);
        throw CairnError.internal('fetching the pull request head failed', { cause: new Error(fetched.stderr.trim()) });
      }
      const [sha] = await peelToCommits(baseDir, [pullRef]);
      if (sha === undefined) throw CairnError.internal(`${pullRef} is missing after the fetch`);
      return { headCommitId: sha };
    },

    async checkMerge(request) {
      branchRef(request.baseBranch);
      const headSpec = commitishSpec(request.head, 'head');
      const gitDir = await open(request.repository);
      const baseSha = await branchTip(gitDir, request.baseBranch);
      const [headSha = ''] = await resolveCommitishes(gitDir, [{ spec: headSpec, value: request.head }]);
      const base = await mergeBase(gitDir, baseSha, headSha);
      if (base === undefined) throw unrelatedHistories();
      const answer = { mergeBase: base, baseCommitId: baseSha, headCommitId: headSha, conflictedFiles: [] as string[] };
      if (base === headSha) return { ...answer, status: 'ancestor' };
      const merged = await mergeTrees(gitDir, baseSha, headSha);
      if (merged.conflicts.length > 0) return { ...answer, status: 'conflict', conflictedFiles: merged.conflicts };
      const status = merged.tree === (await treeOf(gitDir, baseSha)) ? 'empty' : 'mergeable';
      return { ...answer, status };
    },

    async listCommitsBetween(request, ctx) {
      const { page, limit } = pageWindow(request.page);
      const gitDir = await open(request.repository);
      const range = await resolveRange(gitDir, request.base, request.head);
      const total = await countCommitsBetween(gitDir, range.base, range.head);
      const skip = limit > 0 ? (page - 1) * limit : 0;
      if (skip >= total) return { commits: [], total };
      const commits = await readCommits(gitDir, await listCommitsBetween(gitDir, range.base, range.head, skip, limit));
      if (request.withFiles) await addStats(gitDir, commits);
      if (request.withVerification) await addVerifications(context, commits, ctx.signal);
      return { commits, total };
    },

    async listChangedFiles(request) {
      const { page, limit } = pageWindow(request.page);
      const gitDir = await open(request.repository);
      const range = await resolveRange(gitDir, request.base, request.head);
      const base = await mergeBase(gitDir, range.base, range.head);
      if (base === undefined) throw unrelatedHistories();
      const files = await changedFilesSince(gitDir, base, range.head);
      return {
        files: pageOf(files, page, limit),
        total: files.length,
        additions: files.reduce((sum, file) => sum + file.additions, 0),
        deletions: files.reduce((sum, file) => sum + file.deletions, 0),
      };
    },

    async *getDiff(request, ctx) {
      const format = parseDiffFormat(request.format);
      const gitDir = await open(request.repository);
      const range = await resolveRange(gitDir, request.base, request.head);
      let base = range.base;
      if (format === 'diff') {
        const found = await mergeBase(gitDir, range.base, range.head);
        if (found === undefined) throw unrelatedHistories();
        base = found;
      }
      const args = diffCommand(format, { base: range.base, mergeBase: base, head: range.head }, request.binary);
      for await (const data of streamGit(args, { gitDir, signal: ctx.signal })) yield { data };
    },

    async merge(request) {
      return merge(context, request);
    },

    async isAncestor(request) {
      const commit = parseCommitId(request.commit, 'commit');
      const refSpec = commitishSpec(request.ref, 'ref');
      const gitDir = await open(request.repository);
      const [exists] = await peelToCommits(gitDir, [commit]);
      const [tip = ''] = await resolveCommitishes(gitDir, [{ spec: refSpec, value: request.ref }]);
      if (exists === undefined) return { exists: false, ancestor: false };
      return { exists: true, ancestor: await isAncestor(gitDir, commit, tip) };
    },

    async updateBranch(request) {
      return updateBranch(context, request);
    },

    async findMergeCommit(request) {
      branchRef(request.baseBranch);
      const headSpec = commitishSpec(request.head, 'head');
      const gitDir = await open(request.repository);
      const tip = await branchTip(gitDir, request.baseBranch);
      const [head = ''] = await resolveCommitishes(gitDir, [{ spec: headSpec, value: request.head }]);
      if (!(await isAncestor(gitDir, head, tip))) return { found: false, commit: undefined };
      const [commit] = await readCommits(gitDir, [(await firstMergeOnPath(gitDir, head, tip)) ?? head]);
      return { found: true, commit };
    },
  };
}

/** What a merge writes, checked before any git runs. */
interface MergePlan {
  style: MergeStyle;
  baseBranch: string;
  headSpec: string;
  expectedHead: string | undefined;
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_* for the merge (or squash) commit. */
  identity: NodeJS.ProcessEnv;
  /** GIT_COMMITTER_* for replayed commits. */
  committerEnv: NodeJS.ProcessEnv;
  /** How the new commits are signed (merge-signing.ts signedPlan); unset: unsigned. */
  sign?: CommitSigning;
}

function planMerge(request: MergeRequest): MergePlan {
  const style = parseMergeStyle(request.style);
  branchRef(request.baseBranch);
  const headSpec = commitishSpec(request.head, 'head');
  const expectedHead = request.expectedHeadCommitId === '' ? undefined : parseCommitId(request.expectedHeadCommitId, 'expected_head_commit_id');
  const now = new Date();
  // As WriteFiles: no committer means the author, committing now.
  const committer = request.committer ?? (request.author === undefined ? undefined : { ...request.author, when: undefined });
  let identity: NodeJS.ProcessEnv = {};
  let committerEnv: NodeJS.ProcessEnv = {};
  let message = '';
  if (writesMergeCommit(style)) {
    if (request.message.trim() === '') throw CairnError.invalid(`a ${style} needs a commit message`, { reason: 'message_required' });
    message = commitMessage(request.message, undefined);
    identity = { ...identityEnvironment('AUTHOR', request.author, now), ...identityEnvironment('COMMITTER', committer, now) };
  }
  if (replaysCommits(style)) committerEnv = identityEnvironment('COMMITTER', committer, now);
  return { style, baseBranch: request.baseBranch, headSpec, expectedHead, message, identity, committerEnv };
}

/** Merge: validate, decide signing, write the new commits, swap the base branch, publish. */
async function merge(context: GitStorageContext, request: MergeRequest) {
  const plan = planMerge(request);
  const push = requirePush(request.push);
  const repository = requireRepository(request.repository);
  const gitDir = await openRepository(context.root, repository);
  const baseSha = await branchTip(gitDir, plan.baseBranch);
  // A head named by a ref (refs/pull/<n>/head) is read once: the commit merged is the one checked below, and the
  // base moves only while the ref still holds it (compare-and-swap on both refs).
  const headRef = plan.headSpec.startsWith('refs/') ? await findRef(gitDir, plan.headSpec) : undefined;
  const headVerify = headRef === undefined ? [] : [{ ref: plan.headSpec, sha: headRef.sha }];
  const [headSha = ''] = await resolveCommitishes(gitDir, [{ spec: headRef?.sha ?? plan.headSpec, value: request.head }]);
  if (plan.expectedHead !== undefined && plan.expectedHead !== headSha) {
    throw CairnError.precondition(`head is ${headSha}, not ${plan.expectedHead}`, { reason: 'head_out_of_date' });
  }
  const base = await mergeBase(gitDir, baseSha, headSha);
  if (base === undefined) throw unrelatedHistories();
  if (base === headSha) throw CairnError.precondition('the head is already contained in the base branch', { reason: 'already_merged' });

  const tips = { base: baseSha, head: headSha, mergeBase: base };
  // Gitea's SignMerge: signed when asked and the MERGES rules allow; a refusal throws only when required.
  const signer = await mergeSigner(context, request, gitDir, tips);
  const newSha = await writeMerge(gitDir, scratchRoot(context.root, repository), signer === undefined ? plan : signedPlan(plan, signer), tips);
  // A rebase whose every change is already in the base leaves it where it is.
  if (newSha === baseSha) return { mergeCommitId: newSha };
  const update = { ref: branchRef(plan.baseBranch), oldSha: baseSha, newSha };
  const moved = await updateRefs(gitDir, [update], headVerify);
  if (!moved.ok) {
    const headNow = headRef === undefined ? undefined : (await findRef(gitDir, plan.headSpec))?.sha;
    if (headNow !== headRef?.sha) {
      throw CairnError.precondition(`head "${plan.headSpec}" moved while merging`, { reason: 'head_out_of_date', cause: new Error(moved.stderr) });
    }
    throw CairnError.precondition(`branch "${plan.baseBranch}" moved while merging`, { reason: 'base_out_of_date', cause: new Error(moved.stderr) });
  }
  await publishPushed(context, { repository, push, refUpdates: [update] });
  return { mergeCommitId: newSha };
}

/** The base branch's new tip for `plan.style` (new objects only; no ref moves). */
async function writeMerge(gitDir: string, scratch: string, plan: MergePlan, tips: { base: string; head: string; mergeBase: string }): Promise<string> {
  switch (plan.style) {
    case 'fast-forward-only':
      if (tips.mergeBase !== tips.base) {
        throw CairnError.precondition('the base branch is not an ancestor of the head', { reason: 'not_fast_forward' });
      }
      return tips.head;
    case 'merge':
    case 'squash': {
      const merged = await mergeTrees(gitDir, tips.base, tips.head);
      if (merged.conflicts.length > 0) throw mergeConflict(merged.conflicts);
      const parents = plan.style === 'merge' ? [tips.base, tips.head] : [tips.base];
      return commitTree(gitDir, { tree: merged.tree, parents, message: plan.message, identity: plan.identity, sign: plan.sign });
    }
    case 'rebase':
    case 'rebase-merge': {
      const rebased = await rebaseOnto(gitDir, scratch, tips.head, tips.base, plan.committerEnv, plan.sign);
      if (!rebased.ok) throw mergeConflict(rebased.conflicts);
      if (plan.style === 'rebase' || rebased.tip === tips.base) return rebased.tip;
      const tree = await treeOf(gitDir, rebased.tip);
      return commitTree(gitDir, { tree, parents: [tips.base, rebased.tip], message: plan.message, identity: plan.identity, sign: plan.sign });
    }
  }
}
