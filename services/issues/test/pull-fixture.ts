/**
 * What the pull-request and review tests share: issues started against fake git-storage, repos and accounts
 * servers, PullService and ReviewService clients, repositories with branches, and helpers for calls that fail.
 */
import { silentLogger } from '@cairn/log';
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type CreatePullRequest, type PullRequest, PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, createRpcClient, type RpcClient } from '@cairn/rpc';
import { type FakeAccounts, startFakeAccounts } from './fake-accounts';
import { type FakeGitRepos, startFakeGitRepos } from './fake-git-repos';
import { scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

export interface PullFixture {
  harness: ServiceHarness;
  git: FakeGitRepos;
  accounts: FakeAccounts;
  pulls: RpcClient<typeof PullServiceService>;
  reviews: RpcClient<typeof ReviewServiceService>;
  stop(): Promise<void>;
}

export async function startPullFixture(): Promise<PullFixture> {
  const git = await startFakeGitRepos();
  const accounts = await startFakeAccounts([]);
  const harness = await startService({ ...git.env(), ...accounts.env() });
  const options = { target: `127.0.0.1:${harness.service.port}`, service: 'issues', logger: silentLogger() };
  const pulls = createRpcClient(PullServiceService, options);
  const reviews = createRpcClient(ReviewServiceService, options);
  return {
    harness,
    git,
    accounts,
    pulls,
    reviews,
    async stop() {
      pulls.close();
      reviews.close();
      await harness.stop();
      await git.stop();
      await accounts.stop();
    },
  };
}

let nextRepo = 500;
/** A fresh repository id with branches `main` and `feature` (different tips). */
export function freshRepo(git: FakeGitRepos): number {
  nextRepo += 1;
  git.setBranch(nextRepo, 'main', `${nextRepo}`.padStart(40, 'a'));
  git.setBranch(nextRepo, 'feature', `${nextRepo}`.padStart(40, 'b'));
  return nextRepo;
}

export const as = (repoId: number, userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): RepoScope =>
  scope({ userId, mode, repoId, ...more });

/** The repository as repos answers `userId` (what the gateway passes as a head, or repos gives for a reviewer). */
export function repoAs(repoId: number, userId: number, mode: ScopeOptions['mode'], parentId = 0): RepositoryWithPermission {
  const found = as(repoId, userId, mode).repository;
  if (found?.repository === undefined) throw new Error('scope without a repository');
  return { ...found, repository: { ...found.repository, fork: parentId > 0, parentId } };
}

export function pullRequest(repoId: number, userId: number, mode: ScopeOptions['mode'], fields: Partial<CreatePullRequest> = {}): CreatePullRequest {
  return {
    scope: as(repoId, userId, mode),
    head: undefined,
    headBranch: 'feature',
    baseBranch: 'main',
    title: 'a change',
    body: '',
    assigneeIds: [],
    labelIds: [],
    milestoneId: 0,
    reviewerIds: [],
    ...fields,
  };
}

export async function createPull(fixture: PullFixture, request: CreatePullRequest): Promise<PullRequest> {
  const { pull } = await fixture.pulls.createPull(request);
  if (pull?.issue === undefined) throw new Error('CreatePull answered without a pull request');
  return pull;
}

export async function failure(call: Promise<unknown>): Promise<CairnError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}
