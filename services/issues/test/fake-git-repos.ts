/**
 * One real gRPC server standing in for git-storage and repos in the pull-request tests (accounts is
 * fake-accounts.ts). Every answer comes from a public field the test sets; every call that changes something is
 * recorded; methods no test needs are UNIMPLEMENTED. Pass `env()` to startService (pull-fixture.ts does).
 *
 * git-storage: branches (GetBranch, DeleteBranch), pull heads (SyncPullHead copies the head branch's tip), CheckMerge
 * (`mergeStatus`, `conflictedFiles`, `behind`), GetDiff (`diffs`), ListChangedFiles (`changedFiles`), Merge (a new
 * commit on the base branch, with the request's committer, or `mergeError`), UpdateBranch (a new head tip, or
 * `updateError`), IsAncestor (`baseCommits`), ListCommitsBetween (up to a branch `refs/heads/…`: the commits Merge
 * wrote on it, newest first; otherwise `pullCommits`), FindMergeCommit (`mergeCommit`, else the head itself).
 * `holdNextSync()` stops the next SyncPullHead after it read the head branch's tip, until released.
 *
 * repos: BatchGetUserPermissions (`userModes`, else write), GetRepository by id or owner/name (as one viewer sees it from `repositories`, else as an admin from `repositoriesById`),
 * ListRepoTeams (`repoTeams`), GetCombinedStatus (`statuses`, `combinedState`), MatchBranchProtection: the rule of
 * `protections` named by the branch, else, when `approvals` lists who may approve in the repository, a `*` rule with
 * that allow list; rights from `rights`, else `otherRights`; official reviewers are those on the allow list, or
 * without one the code writers (as GetRepository answers them).
 */
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import {
  Commit,
  MergeServiceService,
  type MergeRequest,
  RefServiceService,
  type UpdateBranchRequest,
} from '@cairn/proto/cairn/git/v1/git_service';
import {
  BranchProtection,
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatus,
  CommitStatusServiceService,
  type Repository,
  RepoServiceService,
  type RepositoryWithPermission,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, Code, createRpcServer, type RpcServer, anyCaller } from '@cairn/rpc';
import { type Mode, unimplemented } from './harness';

/** What MatchBranchProtection answers a user may do on a branch. */
export interface BranchRights {
  push: boolean;
  forcePush: boolean;
  merge: boolean;
}

export const ALL_RIGHTS: BranchRights = { push: true, forcePush: true, merge: true };
export const NO_RIGHTS: BranchRights = { push: false, forcePush: false, merge: false };

/** The answers a test changes; `reset()` puts them back. */
export interface Knobs {
  /** What CheckMerge answers. */
  mergeStatus: string;
  /** CheckMerge's conflicted files while `mergeStatus` is 'conflict'. */
  conflictedFiles: string[];
  /** CheckMerge answers a merge base other than the base's tip: the head is behind its base. */
  behind: boolean;
  /** While set, git-storage's SyncPullHead and CheckMerge answer UNAVAILABLE (branches still answer). */
  mergeDown: boolean;
  /** What ListChangedFiles answers. */
  changedFiles: string[];
  /** Commits contained in every base branch (IsAncestor). */
  baseCommits: Set<string>;
  /** What ListCommitsBetween answers (every pull request's commits, newest first). */
  pullCommits: Commit[];
  /** What FindMergeCommit answers when set; otherwise it finds the head itself, without an author. */
  mergeCommit: Commit | undefined;
  /** Merge throws this when set. */
  mergeError: CairnError | undefined;
  /** UpdateBranch throws this when set. */
  updateError: CairnError | undefined;
  /** How long Merge and UpdateBranch take (git's merges and rebases are slower than lookups). */
  writeDelayMs: number;
  /** The rule for the branches it names (by exact name, in every repository). */
  protections: Map<string, BranchProtection>;
  /** `${userId}:${repoId}:${branch}` → what that user may do there. */
  rights: Map<string, BranchRights>;
  /** What everyone else may do on every branch. */
  otherRights: BranchRights;
  /** GetCombinedStatus's answer. */
  statuses: { context: string; state: string }[];
  combinedState: string;
  /** Every Merge, UpdateBranch and DeleteBranch (`${repoId}:${branch}`) asked for, in order. */
  merges: MergeRequest[];
  updates: UpdateBranchRequest[];
  deletedBranches: string[];
  /** GetDiff requests, in order. */
  diffRequests: Array<{ repoId: number; base: string; head: string }>;
  /** `${userId}:${repoId}` → the mode BatchGetUserPermissions answers on every unit (default write). */
  userModes: Map<string, Mode>;
}

export interface FakeGitRepos extends Knobs {
  /** repo id → branch name → tip commit. */
  branches: Map<number, Map<string, string>>;
  /** Pull heads synced, as `${baseRepoId}:${index}` → commit. */
  heads: Map<string, string>;
  /** `${repoId}:${branch}` → the commits Merge wrote on it, newest first. */
  written: Map<string, Commit[]>;
  /** Holds the next SyncPullHead once it has read the head branch's tip: `reached` when it has, until `release()`. */
  holdNextSync(): { reached: Promise<void>; release(): void };
  /** repo id → what GetDiff streams (in small chunks). */
  diffs: Map<number, string>;
  /** `${viewerId}:${repoId}` → what repos answers that viewer. */
  repositories: Map<string, RepositoryWithPermission>;
  /** repo id → the repository repos answers every viewer not in `repositories`, with admin permission. */
  repositoriesById: Map<number, Repository>;
  /** repo id → the teams with access to it (ListRepoTeams). */
  repoTeams: Map<number, number[]>;
  /** repo id → the approvals allow list of the rule protecting every branch (users and teams). */
  approvals: Map<number, { userIds: number[]; teamIds: number[] }>;
  /** user id → their team ids, for the approvals allow list. */
  userTeams: Map<number, number[]>;
  setBranch(repoId: number, name: string, commit: string): void;
  /** A branch's tip; NOT_FOUND as git-storage answers it when there is no such branch. */
  tip(repoId: number, name: string): string;
  /** Puts every answer a test may change back to its default; branches and repositories stay. */
  reset(): void;
  env(): Record<string, string>;
  stop(): Promise<void>;
}

function knobs(): Knobs {
  return {
    mergeStatus: 'mergeable',
    conflictedFiles: [],
    behind: false,
    mergeDown: false,
    changedFiles: [],
    baseCommits: new Set(),
    pullCommits: [],
    mergeCommit: undefined,
    mergeError: undefined,
    updateError: undefined,
    writeDelayMs: 0,
    protections: new Map(),
    rights: new Map(),
    otherRights: ALL_RIGHTS,
    statuses: [],
    combinedState: 'pending',
    merges: [],
    updates: [],
    deletedBranches: [],
    diffRequests: [],
    userModes: new Map(),
  };
}

/** Counts the commits Merge and UpdateBranch make, so that each has its own id. */
let made = 0;
const newCommit = (letter: string): string => `${String(++made).padStart(4, '0')}${letter.repeat(36)}`;

export async function startFakeGitRepos(): Promise<FakeGitRepos> {
  let syncHold: { reached(): void; released: Promise<void> } | undefined;
  const fake: Omit<FakeGitRepos, 'env' | 'stop'> = {
    ...knobs(),
    branches: new Map(),
    heads: new Map(),
    written: new Map(),
    holdNextSync() {
      let reached = (): void => undefined;
      let release = (): void => undefined;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      syncHold = { reached, released };
      return { reached: reachedPromise, release };
    },
    diffs: new Map(),
    repositories: new Map(),
    repositoriesById: new Map(),
    repoTeams: new Map(),
    approvals: new Map(),
    userTeams: new Map(),
    setBranch(repoId, name, commit) {
      const branches = fake.branches.get(repoId) ?? new Map<string, string>();
      branches.set(name, commit);
      fake.branches.set(repoId, branches);
    },
    tip(repoId, name) {
      const commit = fake.branches.get(repoId)?.get(name);
      if (commit === undefined) throw CairnError.notFound(`branch does not exist [name: ${name}]`);
      return commit;
    },
    reset() {
      Object.assign(fake, knobs());
    },
  };
  const headOf = (repoId: number, ref: string): string => fake.heads.get(`${repoId}:${/^refs\/pull\/(\d+)\/head$/.exec(ref)?.[1] ?? '0'}`) ?? '';
  const mergeUp = (): void => {
    if (fake.mergeDown) throw new CairnError(Code.UNAVAILABLE, 'git-storage is down');
  };
  const seenBy = (viewerId: number, repoId: number): RepositoryWithPermission | undefined => {
    const seen = fake.repositories.get(`${viewerId}:${repoId}`);
    if (seen !== undefined) return seen;
    const repository = fake.repositoriesById.get(repoId);
    return repository === undefined ? undefined : { repository, permission: { accessMode: 'admin', units: {} } };
  };
  const page = <T>(all: T[], request: { page?: { page: number; limit: number } }): T[] => {
    const limit = request.page?.limit ?? 30;
    const number = request.page?.page ?? 1;
    return all.slice((number - 1) * limit, number * limit);
  };

  const server: RpcServer = createRpcServer({ service: 'git-storage', logger: silentLogger() });
  server.addService(RefServiceService, {
    ...unimplemented(RefServiceService),
    async getBranch(request) {
      return { branch: { name: request.name, commit: Commit.fromPartial({ sha: fake.tip(request.repository?.repoId ?? 0, request.name) }) } };
    },
    async deleteBranch(request) {
      const repoId = request.repository?.repoId ?? 0;
      fake.tip(repoId, request.name);
      fake.branches.get(repoId)?.delete(request.name);
      fake.deletedBranches.push(`${repoId}:${request.name}`);
      return {};
    },
  }, anyCaller(RefServiceService));
  server.addService(MergeServiceService, {
    ...unimplemented(MergeServiceService),
    async syncPullHead(request) {
      mergeUp();
      const commit = fake.tip(request.head?.repoId ?? 0, request.headBranch);
      const hold = syncHold;
      syncHold = undefined;
      if (hold !== undefined) {
        hold.reached();
        await hold.released;
      }
      fake.heads.set(`${request.base?.repoId ?? 0}:${request.index}`, commit);
      return { headCommitId: commit };
    },
    async checkMerge(request) {
      mergeUp();
      const repoId = request.repository?.repoId ?? 0;
      const base = fake.tip(repoId, request.baseBranch);
      return {
        status: fake.mergeStatus,
        mergeBase: fake.behind ? `base-of-${base}` : base,
        baseCommitId: base,
        headCommitId: headOf(repoId, request.head),
        conflictedFiles: fake.mergeStatus === 'conflict' ? fake.conflictedFiles : [],
      };
    },
    async *getDiff(request) {
      const repoId = request.repository?.repoId ?? 0;
      fake.diffRequests.push({ repoId, base: request.base, head: request.head });
      const diff = fake.diffs.get(repoId) ?? '';
      for (let i = 0; i < diff.length; i += 16) yield { data: Buffer.from(diff.slice(i, i + 16)) };
    },
    async listChangedFiles(request) {
      const files = page(fake.changedFiles, request).map((filename) => ({ filename, status: 'modified', additions: 1, deletions: 0, previousFilename: '' }));
      return { files, total: fake.changedFiles.length, additions: fake.changedFiles.length, deletions: 0 };
    },
    async merge(request) {
      await new Promise((resolve) => setTimeout(resolve, fake.writeDelayMs));
      fake.merges.push(request);
      if (fake.mergeError !== undefined) throw fake.mergeError;
      const repoId = request.repository?.repoId ?? 0;
      if (request.expectedHeadCommitId !== '' && request.expectedHeadCommitId !== headOf(repoId, request.head)) {
        throw CairnError.precondition('head out of date', { reason: 'head_out_of_date' });
      }
      const merged = newCommit('m');
      const key = `${repoId}:${request.baseBranch}`;
      const commit = Commit.fromPartial({ sha: merged, parentShas: [fake.tip(repoId, request.baseBranch)], committer: request.committer });
      fake.written.set(key, [commit, ...(fake.written.get(key) ?? [])]);
      fake.setBranch(repoId, request.baseBranch, merged);
      return { mergeCommitId: merged };
    },
    async updateBranch(request) {
      await new Promise((resolve) => setTimeout(resolve, fake.writeDelayMs));
      fake.updates.push(request);
      if (fake.updateError !== undefined) throw fake.updateError;
      const repoId = request.headRepository?.repoId ?? 0;
      const old = fake.tip(repoId, request.headBranch);
      const moved = newCommit('u');
      fake.setBranch(repoId, request.headBranch, moved);
      return { oldHeadCommitId: old, newHeadCommitId: moved, baseCommitId: fake.tip(request.baseRepository?.repoId ?? 0, request.baseBranch) };
    },
    async isAncestor(request) {
      const contained = fake.baseCommits.has(request.commit);
      return { exists: contained, ancestor: contained };
    },
    async listCommitsBetween(request) {
      const branch = /^refs\/heads\/(.+)$/.exec(request.head)?.[1];
      const commits = branch === undefined ? fake.pullCommits : (fake.written.get(`${request.repository?.repoId ?? 0}:${branch}`) ?? []);
      return { commits: page(commits, request), total: commits.length };
    },
    async findMergeCommit(request) {
      return { found: true, commit: fake.mergeCommit ?? Commit.fromPartial({ sha: request.head }) };
    },
  }, anyCaller(MergeServiceService));
  server.addService(RepoServiceService, {
    ...unimplemented(RepoServiceService),
    async getRepository(request) {
      const fullName = `${request.owner}/${request.name}`.toLowerCase();
      const id =
        request.id > 0 ? request.id : ([...fake.repositoriesById.values()].find((repo) => `${repo.ownerName}/${repo.name}`.toLowerCase() === fullName)?.id ?? 0);
      const repository = seenBy(request.viewer?.userId ?? 0, id);
      if (repository === undefined) throw CairnError.notFound('repository does not exist');
      return { repository };
    },
  }, anyCaller(RepoServiceService));
  server.addService(CollaboratorServiceService, {
    ...unimplemented(CollaboratorServiceService),
    async batchGetUserPermissions(request) {
      const units = ['repo.code', 'repo.issues', 'repo.pulls'];
      return {
        permissions: request.userIds.map((userId) => {
          const mode = fake.userModes.get(`${userId}:${request.repoId}`) ?? 'write';
          return { userId, permission: { accessMode: mode, units: Object.fromEntries(units.map((unit) => [unit, mode])) } };
        }),
      };
    },
    async listRepoTeams(request) {
      return { teamIds: fake.repoTeams.get(request.repoId) ?? [] };
    },
  }, anyCaller(CollaboratorServiceService));
  server.addService(BranchProtectionServiceService, {
    ...unimplemented(BranchProtectionServiceService),
    async matchBranchProtection(request) {
      const viewerId = request.viewer?.userId ?? 0;
      const permission = seenBy(viewerId, request.repoId)?.permission;
      const mode = permission?.units['repo.code'] ?? permission?.accessMode;
      const writesCode = mode === 'write' || mode === 'admin' || mode === 'owner';
      const approvals = fake.approvals.get(request.repoId);
      const teams = fake.userTeams.get(viewerId) ?? [];
      const official =
        approvals === undefined ? writesCode : approvals.userIds.includes(viewerId) || approvals.teamIds.some((team) => teams.includes(team));
      const anyBranch = approvals === undefined ? undefined : BranchProtection.fromPartial({ ruleName: '*', enableApprovalsWhitelist: true });
      return {
        matches: request.branches.map((branch) => {
          const rights = fake.rights.get(`${viewerId}:${request.repoId}:${branch}`) ?? fake.otherRights;
          return {
            branch,
            protection: fake.protections.get(branch) ?? anyBranch,
            userCanPush: rights.push,
            userCanMerge: rights.merge,
            userCanForcePush: rights.forcePush,
            officialReviewer: official,
            approvalsWhitelistTeamIds: approvals?.teamIds ?? [],
          };
        }),
      };
    },
  }, anyCaller(BranchProtectionServiceService));
  server.addService(CommitStatusServiceService, {
    ...unimplemented(CommitStatusServiceService),
    async getCombinedStatus(request) {
      const statuses = fake.statuses.map((status) => CommitStatus.fromPartial({ ...status, sha: request.sha }));
      return { state: fake.combinedState, statuses, totalCount: statuses.length };
    },
  }, anyCaller(CommitStatusServiceService));
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  const addr = `127.0.0.1:${port}`;
  return Object.assign(fake, {
    env: () => ({ [encodeEnvKey('services.git-storage', 'ADDR')]: addr, [encodeEnvKey('services.repos', 'ADDR')]: addr }),
    stop: () => server.stop(),
  });
}
