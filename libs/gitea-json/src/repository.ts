/**
 * repos' Repository → Gitea's `Repository` JSON (services/convert/repository.go `innerToRepo`). What other
 * services own arrives in one batch per kind for the whole list, never one call per row: owners and transfer
 * parties (accounts BatchGetUsers), fork parents as the viewer may read them (repos BatchGetRepositories), teams
 * of pending transfers (accounts BatchGetTeams), stars/watchers (social GetRepoCounters) and open issues/pulls
 * (issues GetRepoIssueCounters).
 */
import { goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Permission, Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { RepoIssueCounters } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { RepoCounters } from '@cairn/proto/cairn/social/v1/social_service';
import { accessAtLeast } from './repo-access';
import type { ConvertWith } from './services';
import { type ApiTeam, toApiTeam } from './org';
import { type ApiUser, toApiUser } from './user';

/** Unit keys (models/unit/unit.go). */
export const UNIT_CODE = 'repo.code';
export const UNIT_ISSUES = 'repo.issues';
export const UNIT_PULLS = 'repo.pulls';
export const UNIT_RELEASES = 'repo.releases';
export const UNIT_WIKI = 'repo.wiki';
export const UNIT_EXTERNAL_WIKI = 'repo.ext_wiki';
export const UNIT_EXTERNAL_TRACKER = 'repo.ext_issues';
export const UNIT_PROJECTS = 'repo.projects';
export const UNIT_PACKAGES = 'repo.packages';
export const UNIT_ACTIONS = 'repo.actions';

/** Gitea's `api.Permission`: the caller's standing in the repository. */
export interface ApiPermission {
  admin: boolean;
  push: boolean;
  pull: boolean;
}

export interface ApiInternalTracker {
  enable_time_tracker: boolean;
  allow_only_contributors_to_track_time: boolean;
  enable_issue_dependencies: boolean;
}

export interface ApiRepoTransfer {
  doer: ApiUser;
  recipient: ApiUser;
  teams: ApiTeam[];
}

/**
 * Gitea's `api.Repository`, keys in its order; `parent`, `internal_tracker` and `repo_transfer` are omitted when
 * empty, as Gitea does (and so are `external_tracker` and `external_wiki`: Cairn has no external units' settings).
 */
export interface ApiRepository {
  id: number;
  owner: ApiUser;
  name: string;
  full_name: string;
  description: string;
  empty: boolean;
  private: boolean;
  fork: boolean;
  template: boolean;
  parent?: ApiRepository;
  mirror: boolean;
  size: number;
  language: string;
  languages_url: string;
  html_url: string;
  url: string;
  link: string;
  ssh_url: string;
  clone_url: string;
  original_url: string;
  website: string;
  stars_count: number;
  forks_count: number;
  watchers_count: number;
  open_issues_count: number;
  open_pr_counter: number;
  release_counter: number;
  default_branch: string;
  default_target_branch: string;
  archived: boolean;
  created_at: string;
  updated_at: string;
  archived_at: string;
  permissions: ApiPermission;
  has_code: boolean;
  has_issues: boolean;
  internal_tracker?: ApiInternalTracker;
  has_wiki: boolean;
  has_pull_requests: boolean;
  has_projects: boolean;
  projects_mode: string;
  has_releases: boolean;
  has_packages: boolean;
  has_actions: boolean;
  ignore_whitespace_conflicts: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  avatar_url: string;
  internal: boolean;
  mirror_interval: string;
  object_format_name: string;
  mirror_updated: string;
  repo_transfer?: ApiRepoTransfer;
  topics: string[];
  licenses: string[];
  branch_count: number;
}

/** What a page of repositories needs from other services, fetched once for the page. */
interface Hydration {
  rootUrl: string;
  users: ReadonlyMap<number, User>;
  counters: ReadonlyMap<number, RepoCounters>;
  issueCounters: ReadonlyMap<number, RepoIssueCounters>;
  teams: ReadonlyMap<number, Team>;
}

/** Gitea's `PermissionInRepo` in the API's three booleans: admin overall, push and pull on code. */
export function toApiPermission(permission: Permission): ApiPermission {
  const code = permission.units[UNIT_CODE];
  return { admin: accessAtLeast(permission.accessMode, 'admin'), push: accessAtLeast(code, 'write'), pull: accessAtLeast(code, 'read') };
}

/** `<ROOT_URL><owner>/<name>`: the repository's web address; `.git` appended, its clone address. */
export function repoHtmlUrl(rootUrl: string, repo: Pick<Repository, 'ownerName' | 'name'>): string {
  return `${rootUrl}${encodeURIComponent(repo.ownerName)}/${encodeURIComponent(repo.name)}`;
}

/** `<ROOT_URL>api/v1/repos/<owner>/<name>`: the repository's API address (Gitea's `APIURL`). */
export function repoApiUrl(rootUrl: string, repo: Pick<Repository, 'ownerName' | 'name'>): string {
  return `${rootUrl}api/v1/repos/${encodeURIComponent(repo.ownerName)}/${encodeURIComponent(repo.name)}`;
}

function required<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`${what} ${String(key)} is missing from its batch answer`);
  return value;
}

function convert(repo: Repository, permission: Permission, parent: ApiRepository | undefined, hydration: Hydration): ApiRepository {
  const { rootUrl } = hydration;
  const has = (unit: string): boolean => repo.units.some((u) => u.key === unit);
  const htmlUrl = repoHtmlUrl(rootUrl, repo);
  const apiUrl = repoApiUrl(rootUrl, repo);
  const owner = toApiUser(required(hydration.users, repo.ownerId, 'owner'), { rootUrl });
  const counters = hydration.counters.get(repo.id);
  const issueCounters = hydration.issueCounters.get(repo.id);
  // Gitea reads the pull-request settings only from an enabled pulls unit, and the projects mode from a projects unit.
  const pulls = has(UNIT_PULLS);
  const transfer = repo.pendingTransfer;
  return {
    id: repo.id,
    owner,
    name: repo.name,
    full_name: `${repo.ownerName}/${repo.name}`,
    description: repo.description,
    empty: repo.empty,
    private: repo.private,
    fork: repo.fork,
    template: repo.template,
    ...(parent === undefined ? {} : { parent }),
    mirror: repo.mirror,
    size: repo.size,
    language: '',
    languages_url: `${apiUrl}/languages`,
    html_url: htmlUrl,
    url: apiUrl,
    link: `${new URL(rootUrl).pathname}${encodeURIComponent(repo.ownerName)}/${encodeURIComponent(repo.name)}`,
    ssh_url: '',
    clone_url: `${htmlUrl}.git`,
    original_url: repo.originalUrl,
    website: repo.website,
    stars_count: counters?.stars ?? 0,
    forks_count: repo.forksCount,
    watchers_count: counters?.watchers ?? 0,
    open_issues_count: issueCounters?.openIssues ?? 0,
    open_pr_counter: issueCounters?.openPulls ?? 0,
    release_counter: repo.releaseCounter,
    default_branch: repo.defaultBranch,
    default_target_branch: repo.defaultBranch,
    archived: repo.archived,
    created_at: goTime(repo.created),
    updated_at: goTime(repo.updated),
    // Gitea's unset archive time is Unix second 0.
    archived_at: goTime(repo.archivedAt ?? new Date(0)),
    permissions: toApiPermission(permission),
    has_code: has(UNIT_CODE),
    has_issues: has(UNIT_ISSUES) || has(UNIT_EXTERNAL_TRACKER),
    ...(has(UNIT_ISSUES)
      ? {
          internal_tracker: {
            enable_time_tracker: repo.enableTimeTracker,
            allow_only_contributors_to_track_time: repo.allowOnlyContributorsToTrackTime,
            enable_issue_dependencies: repo.enableIssueDependencies,
          },
        }
      : {}),
    has_wiki: has(UNIT_WIKI) || has(UNIT_EXTERNAL_WIKI),
    has_pull_requests: pulls,
    has_projects: has(UNIT_PROJECTS),
    projects_mode: has(UNIT_PROJECTS) && repo.projectsMode !== '' ? repo.projectsMode : 'all',
    has_releases: has(UNIT_RELEASES),
    has_packages: has(UNIT_PACKAGES),
    has_actions: has(UNIT_ACTIONS),
    ignore_whitespace_conflicts: pulls && repo.ignoreWhitespaceConflicts,
    allow_merge_commits: pulls && repo.allowMergeCommits,
    allow_rebase: pulls && repo.allowRebase,
    allow_rebase_explicit: pulls && repo.allowRebaseExplicit,
    allow_squash_merge: pulls && repo.allowSquashMerge,
    allow_fast_forward_only_merge: pulls && repo.allowFastForwardOnlyMerge,
    allow_rebase_update: pulls && repo.allowRebaseUpdate,
    allow_manual_merge: pulls && repo.allowManualMerge,
    autodetect_manual_merge: pulls && repo.autodetectManualMerge,
    default_delete_branch_after_merge: pulls && repo.defaultDeleteBranchAfterMerge,
    default_merge_style: pulls && repo.defaultMergeStyle !== '' ? repo.defaultMergeStyle : 'merge',
    default_allow_maintainer_edit: pulls && repo.defaultAllowMaintainerEdit,
    avatar_url: '',
    internal: !repo.private && repo.ownerVisibility === 'private',
    mirror_interval: repo.mirror ? repo.mirrorInterval : '',
    object_format_name: repo.objectFormatName,
    mirror_updated: goTime(repo.mirror ? repo.mirrorUpdated : undefined),
    ...(transfer === undefined
      ? {}
      : {
          repo_transfer: {
            doer: toApiUser(required(hydration.users, transfer.doerId, 'transfer doer'), { rootUrl }),
            recipient: toApiUser(required(hydration.users, transfer.recipientId, 'transfer recipient'), { rootUrl }),
            teams: transfer.teamIds.flatMap((id) => {
              const team = hydration.teams.get(id);
              return team === undefined ? [] : [toApiTeam(team, rootUrl)];
            }),
          },
        }),
    topics: repo.topics,
    licenses: repo.licenses,
    branch_count: repo.branchCount,
  };
}

function byId<T>(items: readonly T[], idOf: (item: T) => number): Map<number, T> {
  return new Map(items.map((item) => [idOf(item), item]));
}

/** A repository with what the viewer may do in it, as every repos answer carries it. */
function unpack(item: RepositoryWithPermission): { repository: Repository; permission: Permission } {
  if (item.repository === undefined || item.permission === undefined) throw new Error('repos answered a repository without its permission');
  return { repository: item.repository, permission: item.permission };
}

/** Gitea's `Repository` objects for `items`, in their order: one batch per kind of data for the whole list. */
export async function toApiRepositories(
  services: ConvertWith<'users' | 'repos' | 'stars' | 'issues' | 'teams'>,
  viewer: Actor | undefined,
  items: readonly RepositoryWithPermission[],
): Promise<ApiRepository[]> {
  if (items.length === 0) return [];
  const { clients, config } = services;
  const repos = items.map(unpack);
  const listed = new Set(repos.map(({ repository }) => repository.id));
  const parentIds = [...new Set(repos.map(({ repository }) => repository.parentId).filter((id) => id > 0 && !listed.has(id)))];
  const fetchedParents =
    parentIds.length === 0 ? [] : (await clients.repos.batchGetRepositories({ viewer, ids: parentIds })).repositories.map(unpack);
  const known = byId([...repos, ...fetchedParents], ({ repository }) => repository.id);
  const all = [...known.values()].map(({ repository }) => repository);

  const userIds = new Set<number>();
  const teamIds = new Set<number>();
  for (const repo of all) {
    userIds.add(repo.ownerId);
    if (repo.pendingTransfer !== undefined) {
      userIds.add(repo.pendingTransfer.doerId);
      userIds.add(repo.pendingTransfer.recipientId);
      for (const id of repo.pendingTransfer.teamIds) teamIds.add(id);
    }
  }
  const [users, counters, issueCounters, teams] = await Promise.all([
    clients.users.batchGetUsers({ ids: [...userIds], viewer }),
    clients.stars.getRepoCounters({ repoIds: all.map((repo) => repo.id) }),
    clients.issues.getRepoIssueCounters({ repoIds: all.map((repo) => repo.id) }),
    teamIds.size === 0 ? { teams: [] } : clients.teams.batchGetTeams({ viewer, ids: [...teamIds] }),
  ]);
  const hydration: Hydration = {
    rootUrl: config.server.rootUrl,
    users: byId(users.users, (user) => user.id),
    counters: byId(counters.counters, (counter) => counter.repoId),
    issueCounters: byId(issueCounters.counters, (counter) => counter.repoId),
    teams: byId(teams.teams, (team) => team.id),
  };
  return repos.map(({ repository, permission }) => {
    // A parent is shown without its own parent, as Gitea does; one the viewer may not read is left out.
    const base = repository.fork ? known.get(repository.parentId) : undefined;
    const parent = base === undefined ? undefined : convert(base.repository, base.permission, undefined, hydration);
    return convert(repository, permission, parent, hydration);
  });
}

/** One repository (create, get, edit answers). */
export async function toApiRepository(
  services: ConvertWith<'users' | 'repos' | 'stars' | 'issues' | 'teams'>,
  viewer: Actor | undefined,
  item: RepositoryWithPermission,
): Promise<ApiRepository> {
  const [converted] = await toApiRepositories(services, viewer, [item]);
  return converted;
}
