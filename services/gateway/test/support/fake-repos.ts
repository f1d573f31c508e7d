/**
 * An in-memory stand-in for the repos service's RepoService (and social's repository counters, which every
 * repository answer needs): a test adds repositories with a rule saying what each viewer may do, and former
 * names; the fake answers GetRepository and BatchGetRepositories by that rule, as repos would, and records every
 * request. Other RepoService methods answer what the test sets in `answers`. Access rules themselves live in
 * repos and are tested there; gateway tests check the HTTP side only.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Permission, RepoRedirect, Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError } from '@cairn/rpc';
import type { IssuesClient, ReposClient, StarsClient } from '../../src/clients';

/** What a viewer may do in a repository; undefined: they may not read it (NOT_FOUND). */
export type PermissionRule = (viewer: Actor | undefined) => Permission | undefined;

export const ALL_UNITS = ['repo.code', 'repo.issues', 'repo.pulls', 'repo.releases', 'repo.wiki', 'repo.projects', 'repo.packages', 'repo.actions'];

/** A permission with `mode` overall and on each of `units`. */
export function permission(mode: string, units: readonly string[] = ALL_UNITS): Permission {
  return { accessMode: mode, units: Object.fromEntries(units.map((unit) => [unit, mode])) };
}

/** A repository with every field set, as repos answers it. */
export function repository(id: number, ownerName: string, name: string, fields: Partial<Repository> = {}): Repository {
  return {
    id,
    ownerId: 1,
    ownerName,
    ownerType: 0,
    ownerVisibility: 'public',
    name,
    description: '',
    website: '',
    private: false,
    template: false,
    fork: false,
    parentId: 0,
    mirror: false,
    mirrorInterval: '',
    originalUrl: '',
    empty: true,
    archived: false,
    archivedAt: undefined,
    size: 0,
    defaultBranch: 'main',
    objectFormatName: 'sha1',
    forksCount: 0,
    starsCount: 0,
    watchersCount: 0,
    openIssuesCount: 0,
    openPrCounter: 0,
    releaseCounter: 0,
    created: new Date('2024-01-02T03:04:05Z'),
    updated: new Date('2024-01-02T03:04:05Z'),
    units: ALL_UNITS.map((key) => ({ key })),
    topics: [],
    allowMergeCommits: true,
    allowRebase: true,
    allowRebaseExplicit: true,
    allowSquashMerge: true,
    allowFastForwardOnlyMerge: true,
    allowRebaseUpdate: true,
    allowManualMerge: false,
    autodetectManualMerge: false,
    defaultDeleteBranchAfterMerge: false,
    defaultMergeStyle: 'merge',
    defaultAllowMaintainerEdit: false,
    ignoreWhitespaceConflicts: false,
    enableTimeTracker: true,
    allowOnlyContributorsToTrackTime: true,
    enableIssueDependencies: true,
    projectsMode: 'all',
    storage: 'default',
    pendingTransfer: undefined,
    branchCount: 0,
    licenses: [],
    ...fields,
  };
}

function key(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

export class FakeRepos {
  /** Every request per method, in order. */
  readonly requests: Record<string, unknown[]> = {};
  /** Answers of RepoService methods the fake does not model, set by the tests. */
  readonly answers: { -readonly [M in keyof ReposClient]?: ReposClient[M] } = {};
  /** Stars and watchers per repository id (social's GetRepoCounters). */
  readonly counters = new Map<number, { stars: number; watchers: number }>();
  /** The repository ids each user starred (social's ListStarredRepos). */
  readonly starred = new Map<number, number[]>();
  readonly client: ReposClient;
  readonly stars: StarsClient;
  /** issues' open issue and pull counters per repository id (GetRepoIssueCounters). */
  readonly issueCounters = new Map<number, { openIssues: number; openPulls: number }>();
  readonly issues: IssuesClient;
  private readonly byId = new Map<number, { repository: Repository; rule: PermissionRule }>();
  private readonly redirects = new Map<string, RepoRedirect>();

  constructor() {
    const handlers: Partial<ReposClient> = {
      getRepository: async (request) => {
        this.record('getRepository', request);
        const redirect = this.redirects.get(key(request.owner, request.name));
        if (request.id === 0 && redirect !== undefined) return { repository: undefined, redirect };
        const found = this.find(request.viewer, request.id, request.owner, request.name);
        if (found === undefined) throw CairnError.notFound('not found', { reason: 'repo_not_found' });
        return { repository: found, redirect: undefined };
      },
      batchGetRepositories: async (request) => {
        this.record('batchGetRepositories', request);
        return { repositories: request.ids.flatMap((id) => this.find(request.viewer, id, '', '') ?? []) };
      },
    };
    this.client = new Proxy(handlers as ReposClient, {
      get: (target, method: string) =>
        target[method as keyof ReposClient] ??
        (async (request: unknown) => {
          this.record(method, request);
          const answer = this.answers[method as keyof ReposClient] as ((request: unknown) => Promise<unknown>) | undefined;
          if (answer === undefined) throw CairnError.internal(`the fake has no answer for ${method}`);
          return answer(request);
        }),
    });
    this.stars = new Proxy({} as StarsClient, {
      get: (_target, method: string) => async (request: { repoIds?: number[]; userId?: number }) => {
        this.record(method, request);
        if (method === 'listStarredRepos') return { repoIds: this.starred.get(request.userId ?? 0) ?? [] };
        // Users' starred_repos_count is covered end to end (e2e/answers.test.ts): here nobody's stars are counted.
        if (method === 'batchListStarredRepos') return { users: [] };
        if (method !== 'getRepoCounters') throw CairnError.internal(`the fake has no answer for stars.${method}`);
        return { counters: (request.repoIds ?? []).map((repoId) => ({ repoId, ...(this.counters.get(repoId) ?? { stars: 0, watchers: 0 }) })) };
      },
    });
    this.issues = new Proxy({} as IssuesClient, {
      get: (_target, method: string) => async (request: { repoIds?: number[] }) => {
        this.record(method, request);
        if (method !== 'getRepoIssueCounters') throw CairnError.internal(`the fake has no answer for issues.${method}`);
        const counters = (request.repoIds ?? []).map((repoId) => ({ repoId, ...(this.issueCounters.get(repoId) ?? { openIssues: 0, openPulls: 0 }) }));
        return { counters };
      },
    });
  }

  /** Adds (or replaces) a repository; `rule` says what each viewer may do in it. */
  add(repo: Repository, rule: PermissionRule): Repository {
    this.byId.set(repo.id, { repository: repo, rule });
    return repo;
  }

  /** `owner/name` is a former name of `to`. */
  addRedirect(owner: string, name: string, to: RepoRedirect): void {
    this.redirects.set(key(owner, name), to);
  }

  /** The requests made to `method`. */
  calls(method: string): unknown[] {
    return this.requests[method] ?? [];
  }

  reset(): void {
    for (const method of Object.keys(this.requests)) delete this.requests[method];
  }

  private record(method: string, request: unknown): void {
    (this.requests[method] ??= []).push(request);
  }

  private find(viewer: Actor | undefined, id: number, owner: string, name: string): RepositoryWithPermission | undefined {
    const entry =
      id > 0 ? this.byId.get(id) : [...this.byId.values()].find(({ repository }) => key(repository.ownerName, repository.name) === key(owner, name));
    if (entry === undefined) return undefined;
    const granted = entry.rule(viewer);
    return granted === undefined ? undefined : { repository: entry.repository, permission: granted };
  }
}
