/**
 * A real gRPC server standing in for git-storage, repos and accounts in the merge tests: branches, pull heads and
 * merge checks (SyncPullHead copies the branch's tip; CheckMerge answers `checkStatus`), Merge (answers a new commit,
 * or `mergeError` when set), ListCommitsBetween (`pullCommits`), IsAncestor over `baseCommits`, FindMergeCommit (`mergeCommit`, else the head itself),
 * changed files, branch deletion, repositories by id, one branch protection rule with the merger's user_can_merge,
 * combined commit statuses and users (by id and by e-mail). Every merge is recorded. Other methods are UNIMPLEMENTED. Pass `env()` to startService.
 */
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { Commit, MergeServiceService, type MergeRequest, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import {
  type BranchProtection,
  BranchProtectionServiceService,
  CommitStatus,
  CommitStatusServiceService,
  type Repository,
  RepoServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { type AsyncServiceOf, CairnError, Code, createRpcServer, type RpcServer } from '@cairn/rpc';
import type * as grpc from '@grpc/grpc-js';

export interface FakeMergeServices {
  /** repo id → branch → tip. */
  branches: Map<number, Map<string, string>>;
  /** Repositories by id (GetRepository). */
  repositories: Map<number, Repository>;
  /** What CheckMerge answers. */
  checkStatus: string;
  conflictedFiles: string[];
  /** Commits contained in every base branch (IsAncestor). */
  baseCommits: Set<string>;
  /** What ListCommitsBetween answers (every pull request's commits, newest first). */
  pullCommits: Commit[];
  /** What FindMergeCommit answers when set; otherwise it finds the head itself, without an author. */
  mergeCommit: Commit | undefined;
  /** The rule for branches it names (by exact name), and whether the caller may merge. */
  protections: Map<string, BranchProtection>;
  userCanMerge: boolean;
  /** GetCombinedStatus's answer. */
  statuses: { context: string; state: string }[];
  combinedState: string;
  changedFiles: string[];
  /** Merge throws this when set. */
  mergeError: CairnError | undefined;
  merges: MergeRequest[];
  deletedBranches: string[];
  users: Map<number, User>;
  setBranch(repoId: number, name: string, commit: string): void;
  env(): Record<string, string>;
  stop(): Promise<void>;
}

function unimplemented<D extends grpc.ServiceDefinition>(definition: D): AsyncServiceOf<D> {
  return Object.fromEntries(
    Object.keys(definition).map((key) => [
      key,
      async () => {
        throw new CairnError(Code.UNIMPLEMENTED, `${key} is not part of this test`);
      },
    ]),
  ) as unknown as AsyncServiceOf<D>;
}

export async function startFakeMergeServices(): Promise<FakeMergeServices> {
  const heads = new Map<string, string>();
  let commits = 0;
  const fake: Omit<FakeMergeServices, 'env' | 'stop'> = {
    branches: new Map(),
    repositories: new Map(),
    checkStatus: 'mergeable',
    conflictedFiles: [],
    baseCommits: new Set(),
    mergeCommit: undefined,
    pullCommits: [],
    protections: new Map(),
    userCanMerge: true,
    statuses: [],
    combinedState: 'pending',
    changedFiles: [],
    mergeError: undefined,
    merges: [],
    deletedBranches: [],
    users: new Map(),
    setBranch(repoId, name, commit) {
      const branches = fake.branches.get(repoId) ?? new Map<string, string>();
      branches.set(name, commit);
      fake.branches.set(repoId, branches);
    },
  };
  const tip = (repoId: number, name: string): string => {
    const commit = fake.branches.get(repoId)?.get(name);
    if (commit === undefined) throw CairnError.notFound(`branch does not exist [name: ${name}]`);
    return commit;
  };
  const headOf = (repoId: number, ref: string): string => heads.get(`${repoId}:${/^refs\/pull\/(\d+)\/head$/.exec(ref)?.[1] ?? '0'}`) ?? '';
  const server: RpcServer = createRpcServer({ service: 'fake-merge-services', logger: silentLogger() });
  server.addService(RefServiceService, {
    ...unimplemented(RefServiceService),
    async getBranch(request) {
      return { branch: { name: request.name, commit: Commit.fromPartial({ sha: tip(request.repository?.repoId ?? 0, request.name) }) } };
    },
    async deleteBranch(request) {
      tip(request.repository?.repoId ?? 0, request.name);
      fake.branches.get(request.repository?.repoId ?? 0)?.delete(request.name);
      fake.deletedBranches.push(`${request.repository?.repoId ?? 0}:${request.name}`);
      return {};
    },
  });
  server.addService(MergeServiceService, {
    ...unimplemented(MergeServiceService),
    async syncPullHead(request) {
      const commit = tip(request.head?.repoId ?? 0, request.headBranch);
      heads.set(`${request.base?.repoId ?? 0}:${request.index}`, commit);
      return { headCommitId: commit };
    },
    async checkMerge(request) {
      const repoId = request.repository?.repoId ?? 0;
      const base = tip(repoId, request.baseBranch);
      return {
        status: fake.checkStatus,
        mergeBase: `base-of-${base}`,
        baseCommitId: base,
        headCommitId: headOf(repoId, request.head),
        conflictedFiles: fake.checkStatus === 'conflict' ? fake.conflictedFiles : [],
      };
    },
    async listChangedFiles(request) {
      const limit = request.page?.limit ?? 30;
      const page = request.page?.page ?? 1;
      const files = fake.changedFiles.slice((page - 1) * limit, page * limit).map((filename) => ({ filename, status: 'modified', additions: 1, deletions: 0, previousFilename: '' }));
      return { files, total: fake.changedFiles.length, additions: fake.changedFiles.length, deletions: 0 };
    },
    async merge(request) {
      fake.merges.push(request);
      if (fake.mergeError !== undefined) throw fake.mergeError;
      const repoId = request.repository?.repoId ?? 0;
      const head = headOf(repoId, request.head);
      if (request.expectedHeadCommitId !== '' && request.expectedHeadCommitId !== head) {
        throw CairnError.precondition('head out of date', { reason: 'head_out_of_date' });
      }
      commits += 1;
      const merged = `${String(commits).padStart(4, '0')}${'m'.repeat(36)}`;
      fake.setBranch(repoId, request.baseBranch, merged);
      return { mergeCommitId: merged };
    },
    async isAncestor(request) {
      const contained = fake.baseCommits.has(request.commit);
      return { exists: contained, ancestor: contained };
    },
    async listCommitsBetween(request) {
      const limit = request.page?.limit ?? 30;
      const page = request.page?.page ?? 1;
      return { commits: fake.pullCommits.slice((page - 1) * limit, page * limit), total: fake.pullCommits.length };
    },
    async findMergeCommit(request) {
      return { found: true, commit: fake.mergeCommit ?? Commit.fromPartial({ sha: request.head }) };
    },
  });
  server.addService(RepoServiceService, {
    ...unimplemented(RepoServiceService),
    async getRepository(request) {
      const repository = fake.repositories.get(request.id);
      if (repository === undefined) throw CairnError.notFound('repository does not exist');
      return { repository: { repository, permission: { accessMode: 'admin', units: {} } } };
    },
  });
  server.addService(BranchProtectionServiceService, {
    ...unimplemented(BranchProtectionServiceService),
    async matchBranchProtection(request) {
      return {
        matches: request.branches.map((branch) => ({ branch, protection: fake.protections.get(branch), userCanPush: fake.userCanMerge, userCanMerge: fake.userCanMerge, userCanForcePush: fake.userCanMerge, officialReviewer: true, approvalsWhitelistTeamIds: [] })),
      };
    },
  });
  server.addService(CommitStatusServiceService, {
    ...unimplemented(CommitStatusServiceService),
    async getCombinedStatus(request) {
      const statuses = fake.statuses.map((status) => CommitStatus.fromPartial({ ...status, sha: request.sha }));
      return { state: fake.combinedState, statuses, totalCount: statuses.length };
    },
  });
  server.addService(UserServiceService, {
    ...unimplemented(UserServiceService),
    async batchGetUsers(request) {
      return { users: request.ids.flatMap((id) => (fake.users.has(id) ? [User.fromPartial(fake.users.get(id) ?? {})] : [])) };
    },
    async batchGetUsersByEmail(request) {
      const owners = [...fake.users.values()];
      return {
        users: request.emails.flatMap((email) => {
          const user = owners.find((candidate) => candidate.email.toLowerCase() === email.toLowerCase());
          return user === undefined ? [] : [{ email, user: User.fromPartial(user) }];
        }),
      };
    },
  });
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  const addr = `127.0.0.1:${port}`;
  return Object.assign(fake, {
    env: () => ({
      [encodeEnvKey('services.git-storage', 'ADDR')]: addr,
      [encodeEnvKey('services.repos', 'ADDR')]: addr,
      [encodeEnvKey('services.accounts', 'ADDR')]: addr,
    }),
    stop: () => server.stop(),
  });
}
