/**
 * git-storage in memory for the repository service tests: repositories with their branches and HEAD, as
 * RepositoryService (create, fork, delete, info, default branch) and RefService.GetBranch, GetTag and CreateTag
 * answer them (a branch's commit is a made-up sha derived from its name). `push` stands for a push; `failNext` makes the next call of a method fail as a dead git-storage would, `answerLateNext`
 * makes it do its work and fail as a call whose deadline passed meanwhile.
 */
import { createHash } from 'node:crypto';
import { Commit, type CreateRepositoryRequest, type CreateTagRequest, type Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError, Code } from '@cairn/rpc';
import type { GitAnalysisClient, GitRefsClient, GitRepositoriesClient } from '../../src/rpc/context';

interface MemoryRepo {
  branches: Set<string>;
  head: string;
  /** What DetectLicenses answers: the licence auto-init wrote, or what `setLicenses` says a push brought. */
  licenses: string[];
  /** Tag name → the commit it points at. */
  tags: Map<string, string>;
}

export interface GitMemory {
  repositories: GitRepositoriesClient;
  refs: GitRefsClient;
  analysis: GitAnalysisClient;
  /** Every CreateRepository request, in order. */
  createRequests: CreateRepositoryRequest[];
  /** Every CreateTag request, in order. */
  tagRequests: CreateTagRequest[];
  /** The repository on "disk", if it exists. */
  repo(id: number): MemoryRepo | undefined;
  push(id: number, branch: string): void;
  /** A tag pushed (`sha` given) or deleted by a push (`undefined`). */
  pushTag(id: number, name: string, sha: string | undefined): void;
  /** The licences the repository's files hold from now on. */
  setLicenses(id: number, licenses: string[]): void;
  failNext(method: 'createRepository' | 'forkRepository' | 'deleteRepository' | 'setDefaultBranch'): void;
  answerLateNext(method: 'createRepository' | 'forkRepository'): void;
}

/** A client whose listed methods answer and whose others reject, so a test that reaches one fails loudly. */
function partial<T extends object>(service: string, methods: Partial<T>): T {
  return new Proxy(methods as T, {
    get: (target, method) => {
      if (method === 'then') return undefined;
      const handler = (target as Record<PropertyKey, unknown>)[method];
      return handler ?? (() => Promise.reject(CairnError.unavailable(`${service}.${String(method)} is not part of these tests`)));
    },
  });
}

/** The made-up commit a branch points at. */
export function branchSha(branch: string): string {
  return createHash('sha1').update(`branch ${branch}`).digest('hex');
}

export function gitMemory(): GitMemory {
  const repos = new Map<number, MemoryRepo>();
  const failing = new Set<string>();
  const late = new Set<string>();
  const createRequests: CreateRepositoryRequest[] = [];
  const tagRequests: CreateTagRequest[] = [];

  const failIfAsked = (method: string): void => {
    if (failing.delete(method)) throw CairnError.unavailable(`git-storage is down (${method})`);
  };
  const lateIfAsked = (method: string): void => {
    if (late.delete(method)) throw new CairnError(Code.DEADLINE_EXCEEDED, `git-storage answered too late (${method})`);
  };
  const existing = (repository: Repository | undefined): MemoryRepo => {
    const repo = repos.get(repository?.repoId ?? 0);
    if (repo === undefined) throw CairnError.notFound('repository does not exist');
    return repo;
  };

  const repositories = partial<GitRepositoriesClient>('git.RepositoryService', {
    async createRepository(request) {
      failIfAsked('createRepository');
      createRequests.push(request);
      const id = request.repository?.repoId ?? 0;
      if (repos.has(id)) throw CairnError.exists('repository exists');
      if (/[\s~^:?*[\\]|\.\./.test(request.defaultBranch)) throw CairnError.invalid('invalid ref name', { reason: 'invalid_ref_name' });
      repos.set(id, {
        branches: new Set(request.autoInit ? [request.defaultBranch] : []),
        head: request.defaultBranch,
        licenses: request.autoInit && request.license !== '' ? [request.license] : [],
        tags: new Map(),
      });
      lateIfAsked('createRepository');
      return { commitSha: request.autoInit ? 'a'.repeat(40) : '' };
    },
    async forkRepository(request) {
      failIfAsked('forkRepository');
      const source = existing(request.source);
      repos.set(request.target?.repoId ?? 0, { branches: new Set(source.branches), head: source.head, licenses: [...source.licenses], tags: new Map(source.tags) });
      lateIfAsked('forkRepository');
      return {};
    },
    async deleteRepository(request) {
      failIfAsked('deleteRepository');
      repos.delete(request.repository?.repoId ?? 0);
      return {};
    },
    async getRepositoryInfo(request) {
      const repo = existing(request.repository);
      return { empty: repo.branches.size === 0, sizeKib: repo.branches.size * 12, headBranch: repo.head, branchCount: repo.branches.size };
    },
    async setDefaultBranch(request) {
      failIfAsked('setDefaultBranch');
      const repo = existing(request.repository);
      if (repo.branches.size > 0 && !repo.branches.has(request.branch)) throw CairnError.notFound('branch does not exist');
      repo.head = request.branch;
      return {};
    },
  });

  const refs = partial<GitRefsClient>('git.RefService', {
    async getBranch(request) {
      const repo = existing(request.repository);
      if (!repo.branches.has(request.name)) throw CairnError.notFound(`branch ${request.name} does not exist`);
      return { branch: { name: request.name, commit: undefined } };
    },
    async getTag(request) {
      const sha = existing(request.repository).tags.get(request.name);
      if (sha === undefined) throw CairnError.notFound(`tag ${request.name} does not exist`);
      return { tag: { name: request.name, id: sha, commit: Commit.fromPartial({ sha }), message: '', tagger: undefined, annotated: false } };
    },
    async createTag(request) {
      const repo = existing(request.repository);
      tagRequests.push(request);
      if (repo.tags.has(request.name)) throw CairnError.exists(`tag ${request.name} exists`);
      const sha = repo.branches.has(request.target) ? branchSha(request.target) : /^[0-9a-f]{40}$/.test(request.target) ? request.target : undefined;
      if (sha === undefined) throw CairnError.notFound(`revision ${request.target} does not exist`);
      repo.tags.set(request.name, sha);
      return { tag: { name: request.name, id: sha, commit: Commit.fromPartial({ sha }), message: request.message, tagger: request.tagger, annotated: request.message !== '' } };
    },
  });

  const analysis = partial<GitAnalysisClient>('git.AnalysisService', {
    async detectLicenses(request) {
      const repo = existing(request.repository);
      return { licenses: repo.branches.size === 0 ? [] : repo.licenses, commitSha: '' };
    },
  });

  return {
    repositories,
    refs,
    analysis,
    createRequests,
    tagRequests,
    repo: (id) => repos.get(id),
    push(id, branch) {
      const repo = repos.get(id);
      if (repo === undefined) throw new Error(`no git repository ${id}`);
      repo.branches.add(branch);
    },
    pushTag(id, name, sha) {
      const repo = repos.get(id);
      if (repo === undefined) throw new Error(`no git repository ${id}`);
      if (sha === undefined) repo.tags.delete(name);
      else repo.tags.set(name, sha);
    },
    setLicenses(id, licenses) {
      const repo = repos.get(id);
      if (repo === undefined) throw new Error(`no git repository ${id}`);
      repo.licenses = licenses;
    },
    failNext(method) {
      failing.add(method);
    },
    answerLateNext(method) {
      late.add(method);
    },
  };
}
