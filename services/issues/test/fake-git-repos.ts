/**
 * Real gRPC servers standing in for git-storage and repos in the pull-request service tests: branches per
 * repository (GetBranch), pull heads and merge checks (SyncPullHead copies the branch's tip, CheckMerge answers
 * `mergeStatus`), repositories as each user sees them (GetRepository, for reviewers' permissions), no branch
 * protection. Every other method is UNIMPLEMENTED. Pass `env()` to startService.
 */
import { encodeEnvKey } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { Commit, MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { BranchProtectionServiceService, RepoServiceService, type RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
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
      return { matches: request.branches.map((branch) => ({ branch, protection: undefined, userCanPush: true, userCanMerge: true })) };
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
