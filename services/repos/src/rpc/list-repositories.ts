/**
 * The repository lists: SearchRepositories, ListOwnerRepositories, ListAccessibleRepositories, ListForks and a team's
 * repositories. Each is one query filtered in SQL by what the viewer may read (store/access-scope.ts), a count of the
 * same set, and the viewer's permission on the page's rows with a fixed number of further queries.
 */
import { sql, z, type FragmentSqlToken } from '@cairn/db';
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import type {
  ListAccessibleRepositoriesRequest,
  ListForksRequest,
  ListReadableRepositoryIdsRequest,
  ListReadableRepositoryIdsResponse,
  ListOwnerRepositoriesRequest,
  RepositoryWithPermission,
  SearchRepositoriesRequest,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { actorOf } from '@cairn/rpc';
import { AccessMode, accessModeOf, isSignedIn, viewerFromActor, type Viewer } from '../domain/access';
import { boundedWindow } from '../domain/paging';
import { keywordParts, modeFilter, searchOrder, type SearchOrder } from '../domain/repo-search';
import { grantedCondition, publicCondition, readableCondition, viewerScope } from '../store/access-scope';
import { keywordCondition, pageRepositories } from '../store/repo-lists';
import { internalActor } from './accounts-lookup';
import type { ReposContext } from './context';
import { loadRepoForViewer, permissionsFor } from './repo-access';
import { withPermission } from './repository-message';
import { userTeams } from './viewer-teams';

export interface RepositoryList {
  repositories: RepositoryWithPermission[];
  total: number;
}

const BY_ID: SearchOrder = { column: 'id', direction: 'asc' };
const BY_NAME: SearchOrder = { column: 'lower_name', direction: 'asc' };

/** Filters in SQL, so pages and totals agree: `publicOnly` for a public-only token (see publicCondition). */
async function readablePage(
  context: ReposContext,
  viewer: Viewer,
  conditions: readonly FragmentSqlToken[],
  order: SearchOrder,
  page: PageRequest | undefined,
  publicOnly: boolean | undefined = false,
): Promise<RepositoryList> {
  const scope = await viewerScope(context, viewer);
  const window = boundedWindow(page, context.config.api.defaultPagingNum);
  const readable = publicOnly === true ? [readableCondition(scope), publicCondition()] : [readableCondition(scope)];
  const { repos, total } = await pageRepositories(context.db.pool, [...readable, ...conditions], order, window);
  const permissions = await permissionsFor(context, viewer, repos, scope.kind === 'viewer' ? scope.teams : undefined);
  return { repositories: repos.map((repo) => withPermission(repo, permissions.get(repo.id)!)), total };
}

/** The repositories team `teamId` reaches (none when there is no such team). */
async function teamCondition(context: ReposContext, viewer: Viewer, teamId: number): Promise<FragmentSqlToken> {
  const { teams } = await context.accounts.teams.batchGetTeams({ viewer: internalActor(viewer.id), ids: [teamId] });
  return teams.length === 0 ? sql.fragment`FALSE` : teamReach(teams[0], teamId);
}

/** Every readable repository id with one of the units enabled, of one owner or team when asked (issue search). */
export async function listReadableRepositoryIds(context: ReposContext, request: ListReadableRepositoryIdsRequest): Promise<ListReadableRepositoryIdsResponse> {
  const viewer = viewerFromActor(request.viewer);
  const conditions: FragmentSqlToken[] = [readableCondition(await viewerScope(context, viewer))];
  if (request.units.length > 0) {
    conditions.push(sql.fragment`EXISTS (SELECT 1 FROM repo_units ru WHERE ru.repo_id = r.id AND ru.unit_key = ANY(${sql.array(request.units, 'text')}))`);
  }
  if (request.ownerId > 0) conditions.push(sql.fragment`r.owner_id = ${request.ownerId}`);
  if (request.teamId > 0) conditions.push(await teamCondition(context, viewer, request.teamId));
  const ids = await context.db.pool.anyFirst(sql.type(z.object({ id: z.number() }))`
    SELECT r.id FROM repositories r WHERE ${sql.join(conditions, sql.fragment` AND `)} ORDER BY r.id DESC`);
  return { repoIds: [...ids] };
}

/** Repositories a team reaches: all of its organization's when it includes all (or owns them), else its links. */
function teamReach(team: { orgId: number; includesAllRepositories: boolean; permission: string }, teamId: number): FragmentSqlToken {
  if (team.includesAllRepositories || accessModeOf(team.permission) >= AccessMode.Admin) return sql.fragment`r.owner_id = ${team.orgId}`;
  return sql.fragment`r.id IN (SELECT tr.repo_id FROM team_repos tr WHERE tr.team_id = ${teamId})`;
}

export async function searchRepositories(context: ReposContext, request: SearchRepositoriesRequest): Promise<RepositoryList> {
  const viewer = viewerFromActor(request.viewer);
  const order = searchOrder(request.sort, request.order);
  const mode = modeFilter(request.mode);
  const conditions: FragmentSqlToken[] = [];
  const parts = keywordParts(request.keyword);
  if (parts.length > 0) {
    conditions.push(
      keywordCondition(parts, {
        includeDescription: request.includeDescription,
        topicOnly: request.topic,
        ownerSlash: request.teamId === 0 && request.keyword.split('/').length === 2,
      }),
    );
  }
  if (request.ownerId > 0) {
    const owned = sql.fragment`r.owner_id = ${request.ownerId}`;
    if (request.exclusive && !mode.collaborative) conditions.push(owned);
    else {
      const granted = grantedCondition(request.ownerId, await userTeams(context, request.ownerId, 0));
      conditions.push(mode.collaborative ? sql.fragment`(r.owner_id <> ${request.ownerId} AND ${granted})` : granted);
    }
  }
  if (request.restrictToIds) conditions.push(sql.fragment`r.id = ANY(${sql.array(request.onlyIds, 'int8')})`);
  if (request.isPrivate !== undefined) conditions.push(sql.fragment`r.is_private = ${request.isPrivate}`);
  if (request.template !== undefined) conditions.push(sql.fragment`r.is_template = ${request.template}`);
  if (request.archived !== undefined) conditions.push(sql.fragment`r.is_archived = ${request.archived}`);
  if (mode.fork !== undefined) conditions.push(sql.fragment`r.is_fork = ${mode.fork}`);
  if (mode.mirror !== undefined) conditions.push(sql.fragment`r.is_mirror = ${mode.mirror}`);
  if (request.teamId > 0) conditions.push(await teamCondition(context, viewer, request.teamId));
  return readablePage(context, viewer, conditions, order, request.page, request.publicOnly);
}

/** An owner's repositories in creation order (Gitea's listUserRepos: `id ASC`). */
export function listOwnerRepositories(context: ReposContext, request: ListOwnerRepositoriesRequest): Promise<RepositoryList> {
  const viewer = viewerFromActor(request.viewer);
  return readablePage(context, viewer, [sql.fragment`r.owner_id = ${request.ownerId}`], BY_ID, request.page, request.publicOnly);
}

/** What the viewer owns or was given, by name (Gitea's ListMyRepos). */
export async function listAccessibleRepositories(context: ReposContext, request: ListAccessibleRepositoriesRequest): Promise<RepositoryList> {
  const viewer = viewerFromActor(request.viewer);
  if (!isSignedIn(viewer)) return { repositories: [], total: 0 };
  const granted = grantedCondition(viewer.id, await userTeams(context, viewer.id, 0));
  return readablePage(context, viewer, [granted], BY_NAME, request.page, request.publicOnly);
}

export async function listForks(context: ReposContext, request: ListForksRequest): Promise<RepositoryList> {
  const viewer = viewerFromActor(request.viewer);
  const { repo } = await loadRepoForViewer(context, viewer, request.id);
  return readablePage(context, viewer, [sql.fragment`r.fork_id = ${repo.id}`], BY_ID, request.page, request.publicOnly);
}

/** A team's repositories, by name; NOT_FOUND when the viewer may not see the team (accounts decides). */
export async function listTeamRepositories(
  context: ReposContext,
  viewer: Viewer,
  teamId: number,
  page: PageRequest | undefined,
  publicOnly: boolean | undefined,
): Promise<RepositoryList> {
  const { team } = await context.accounts.teams.getTeam({ viewer: actorOf(viewer), id: teamId });
  if (team === undefined) return { repositories: [], total: 0 };
  return readablePage(context, viewer, [teamReach(team, teamId)], BY_NAME, page, publicOnly);
}
