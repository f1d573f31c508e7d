/**
 * What the pull-request tests share: issues started against fake git-storage, repos and accounts servers, PullService
 * and ReviewService clients, repositories with branches (seen per viewer, or by everyone with settings), and helpers
 * for calls that fail.
 */
import { silentLogger } from '@cairn/log';
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type CreatePullRequest, type PullRequest, PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, createRpcClient, type RpcClient } from '@cairn/rpc';
import { type FakeAccounts, startFakeAccounts } from './fake-accounts';
import { type FakeGitRepos, startFakeGitRepos } from './fake-git-repos';
import { type Mode, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

export interface PullFixture {
  harness: ServiceHarness;
  git: FakeGitRepos;
  accounts: FakeAccounts;
  pulls: RpcClient<typeof PullServiceService>;
  reviews: RpcClient<typeof ReviewServiceService>;
  stop(): Promise<void>;
}

/** `env` adds configuration, as startService's. */
export async function startPullFixture(env: Record<string, string> = {}): Promise<PullFixture> {
  const git = await startFakeGitRepos();
  const accounts = await startFakeAccounts([]);
  const harness = await startService({ ...git.env(), ...accounts.env(), ...env });
  const options = { target: `127.0.0.1:${harness.service.port}`, service: 'issues', caller: 'gateway', logger: silentLogger() } as const;
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
/** A fresh repository id with branches `main` and `feature` (different tips); repos knows only the viewers a test adds. */
export function freshRepo(git: FakeGitRepos): number {
  nextRepo += 1;
  git.setBranch(nextRepo, 'main', `${nextRepo}`.padStart(40, 'a'));
  git.setBranch(nextRepo, 'feature', `${nextRepo}`.padStart(40, 'b'));
  return nextRepo;
}

/** A made-up commit id (hexadecimal, so that any number will do). */
export const SHA = (n: number): string => n.toString(16).padStart(40, 'a');

/** A repository repos answers every viewer, and the scopes of it a test sends. */
export interface FakeRepo {
  id: number;
  /** The scope of `userId` with `mode` (default write) on the repository with its settings. */
  scopeOf(userId: number, mode?: Mode): RepoScope;
}

/**
 * A fresh repository with branches main (tip `SHA(id * 10)`) and feature (`SHA(id * 10 + 1)`), on the default
 * storage, with `settings` (merge styles, rebase updates…) both as repos answers it and in every scope of it.
 */
export function configuredRepo(git: FakeGitRepos, settings: Partial<Repository> = {}): FakeRepo {
  nextRepo += 1;
  const id = nextRepo;
  const configure = (s: RepoScope): RepoScope => {
    Object.assign(s.repository?.repository ?? {}, { storage: 'default', ...settings });
    return s;
  };
  git.setBranch(id, 'main', SHA(id * 10));
  git.setBranch(id, 'feature', SHA(id * 10 + 1));
  const repository = configure(scope({ userId: 1, repoId: id })).repository?.repository;
  if (repository === undefined) throw new Error('scope without a repository');
  git.repositoriesById.set(id, repository);
  return { id, scopeOf: (userId, mode = 'write') => configure(scope({ userId, mode, repoId: id })) };
}

export const as = (repoId: number, userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): RepoScope =>
  scope({ userId, mode, repoId, ...more });

/** The scope of a repository of organization `owner100` (the harness's default owner): team review requests. */
export function orgAs(repoId: number, userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): RepoScope {
  const scoped = as(repoId, userId, mode, more);
  if (scoped.repository?.repository !== undefined) scoped.repository.repository.ownerType = 1;
  return scoped;
}

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
    teamNames: [],
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
