/**
 * Real gRPC servers standing in for git-storage and repos in the pull-request service tests: branches per
 * repository (GetBranch), pull heads and merge checks (SyncPullHead copies the branch's tip, CheckMerge answers
 * `mergeStatus`), repositories as each user sees them (GetRepository, for reviewers' permissions), a pull request's
 * diff (GetDiff, from `diffs`), a repository's teams (ListRepoTeams, from `repoTeams`), and branch protection as far
 * as reviews ask: no rule, unless `approvals` lists who may approve in a repository (a rule with the approvals allow
 * list on); without one, code writers (as `repositories` answers them) are official reviewers. Every other method is
 * UNIMPLEMENTED. Pass `env()` to startService.
 */
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { Commit, MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import {
  BranchProtection,
  BranchProtectionServiceService,
  CollaboratorServiceService,
  RepoServiceService,
  type RepositoryWithPermission,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { type AsyncServiceOf, CairnError, Code, createRpcServer, type RpcServer } from '@cairn/rpc';

export interface FakeGitRepos {
  /** repo id → branch name → tip commit. */
  branches: Map<number, Map<string, string>>;
  /** `${viewerId}:${repoId}` → what repos answers that viewer. */
  repositories: Map<string, RepositoryWithPermission>;
  /** What CheckMerge answers. */
  mergeStatus: string;
  /** While set, git-storage's MergeService answers UNAVAILABLE (branches still answer). */
  mergeDown: boolean;
  /** Pull heads synced, as `${baseRepoId}:${index}` → commit. */
  heads: Map<string, string>;
  /** repo id → what GetDiff streams (in small chunks). */
  diffs: Map<number, string>;
  /** GetDiff requests, in order. */
  diffRequests: Array<{ repoId: number; base: string; head: string }>;
  /** repo id → the teams with access to it (ListRepoTeams). */
  repoTeams: Map<number, number[]>;
  /** repo id → the approvals allow list of the rule protecting every branch (users and teams). */
  approvals: Map<number, { userIds: number[]; teamIds: number[] }>;
  /** user id → their team ids, for the approvals allow list. */
  userTeams: Map<number, number[]>;
  setBranch(repoId: number, name: string, commit: string): void;
  env(): Record<string, string>;
  stop(): Promise<void>;
}

function unimplemented<D extends Parameters<RpcServer['addService']>[0]>(definition: D): AsyncServiceOf<D> {
  return Object.fromEntries(
    Object.keys(definition).map((key) => [
      key,
      async () => {
        throw new CairnError(Code.UNIMPLEMENTED, `${key} is not part of this test`);
      },
    ]),
  ) as unknown as AsyncServiceOf<D>;
}

export async function startFakeGitRepos(): Promise<FakeGitRepos> {
  const fake: Omit<FakeGitRepos, 'env' | 'stop'> = {
    branches: new Map(),
    repositories: new Map(),
    mergeStatus: 'mergeable',
    mergeDown: false,
    heads: new Map(),
    diffs: new Map(),
    diffRequests: [],
    repoTeams: new Map(),
    approvals: new Map(),
    userTeams: new Map(),
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
  const server: RpcServer = createRpcServer({ service: 'fake-git-repos', logger: silentLogger() });
  server.addService(RefServiceService, {
    ...unimplemented(RefServiceService),
    async getBranch(request) {
      const commit = tip(request.repository?.repoId ?? 0, request.name);
      return { branch: { name: request.name, commit: Commit.fromPartial({ sha: commit }) } };
    },
  });
  server.addService(MergeServiceService, {
    ...unimplemented(MergeServiceService),
    async syncPullHead(request) {
      if (fake.mergeDown) throw new CairnError(Code.UNAVAILABLE, 'git-storage is down');
      const commit = tip(request.head?.repoId ?? 0, request.headBranch);
      fake.heads.set(`${request.base?.repoId ?? 0}:${request.index}`, commit);
      return { headCommitId: commit };
    },
    async checkMerge(request) {
      if (fake.mergeDown) throw new CairnError(Code.UNAVAILABLE, 'git-storage is down');
      const index = /^refs\/pull\/(\d+)\/head$/.exec(request.head)?.[1] ?? '0';
      const head = fake.heads.get(`${request.repository?.repoId ?? 0}:${index}`) ?? '';
      const base = tip(request.repository?.repoId ?? 0, request.baseBranch);
      return { status: fake.mergeStatus, mergeBase: base, baseCommitId: base, headCommitId: head, conflictedFiles: [] };
    },
    async *getDiff(request) {
      const repoId = request.repository?.repoId ?? 0;
      fake.diffRequests.push({ repoId, base: request.base, head: request.head });
      const diff = fake.diffs.get(repoId) ?? '';
      for (let i = 0; i < diff.length; i += 16) yield { data: Buffer.from(diff.slice(i, i + 16)) };
    },
  });
  server.addService(CollaboratorServiceService, {
    ...unimplemented(CollaboratorServiceService),
    async listRepoTeams(request) {
      return { teamIds: fake.repoTeams.get(request.repoId) ?? [] };
    },
  });
  server.addService(RepoServiceService, {
    ...unimplemented(RepoServiceService),
    async getRepository(request) {
      const repository = fake.repositories.get(`${request.viewer?.userId ?? 0}:${request.id}`);
      if (repository === undefined) throw CairnError.notFound('repository does not exist');
      return { repository };
    },
  });
  server.addService(BranchProtectionServiceService, {
    ...unimplemented(BranchProtectionServiceService),
    async matchBranchProtection(request) {
      const viewerId = request.viewer?.userId ?? 0;
      const seen = fake.repositories.get(`${viewerId}:${request.repoId}`)?.permission?.units['repo.code'];
      const writesCode = seen === 'write' || seen === 'admin' || seen === 'owner';
      const approvals = fake.approvals.get(request.repoId);
      const teams = fake.userTeams.get(viewerId) ?? [];
      const official =
        approvals === undefined ? writesCode : approvals.userIds.includes(viewerId) || approvals.teamIds.some((team) => teams.includes(team));
      const protection = approvals === undefined ? undefined : BranchProtection.fromPartial({ ruleName: '*', enableApprovalsWhitelist: true });
      return {
        matches: request.branches.map((branch) => ({
          branch,
          protection,
          userCanPush: true,
          userCanMerge: true,
          userCanForcePush: true,
          officialReviewer: official,
          approvalsWhitelistTeamIds: approvals?.teamIds ?? [],
        })),
      };
    },
  });
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  const addr = `127.0.0.1:${port}`;
  return Object.assign(fake, {
    env: () => ({ [encodeEnvKey('services.git-storage', 'ADDR')]: addr, [encodeEnvKey('services.repos', 'ADDR')]: addr }),
    stop: () => server.stop(),
  });
}
