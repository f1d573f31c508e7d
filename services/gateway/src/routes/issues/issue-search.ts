/**
 * Issue search across repositories: GET /repos/issues/search (routers/api/v1/repo/issue.go SearchIssues).
 *
 * repos says which repositories the caller may read (anonymous callers and public-only tokens: public ones only),
 * those with the issues unit for issues and those with the pull requests unit for pull requests, optionally of one
 * `owner` (400 when unknown) and one of its teams (`team`, which needs `owner`; 400 when unknown); the issues service
 * pages through their issues, newest first. `assigned`, `created`, `mentioned`, `review_requested` and `reviewed` mean
 * "by the signed-in caller" and are ignored for anonymous callers, as Gitea does. `limit` defaults to 30 and is
 * capped at `[api] MAX_RESPONSE_ITEMS` (Gitea's paginator caps what it reads); Link and X-Total-Count as Gitea.
 */
import { HttpError, correctPageSize, goFormBool, goFormInt, goFormString } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue, IssueFilter } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_ISSUES, UNIT_PULLS, toApiIssues } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { queryBeforeSince } from '../../issues/before-since';
import { accountIdByName, commaList, pageRequest, userIdForFilter, userNotExist } from './issue-params';

/** The `owner` and `team` filters as ids (0: none). */
async function ownerAndTeam<B>(ctx: ApiContext<B>): Promise<{ ownerId: number; teamId: number }> {
  const ownerName = goFormString(ctx.query, 'owner');
  const teamName = goFormString(ctx.query, 'team');
  let ownerId = 0;
  if (ownerName !== '') {
    const owner = await accountIdByName(ctx.services, ctx.viewer, ownerName);
    if (owner === undefined) throw HttpError.badRequest(userNotExist(ownerName));
    ownerId = owner.id;
  }
  if (teamName === '') return { ownerId, teamId: 0 };
  if (ownerName === '') throw HttpError.badRequest('Owner organisation is required for filtering on team');
  const teamNotExist = HttpError.badRequest(`team does not exist [org_id: ${ownerId}, team_id: 0, name: ${teamName}]`);
  // Teams the caller may see (their own, or all for a site admin): another team names nothing they could filter on.
  if (ctx.viewer === undefined) throw teamNotExist;
  const { teams } = await ctx.services.clients.teams
    .searchTeams({ viewer: ctx.viewer, org: ownerName, keyword: teamName, includeDescription: false, page: { page: 1, limit: 50 } })
    .catch((error: unknown) => {
      // An organization the caller may not see, or whose teams they may not list, has no team for them.
      if (isCairnError(error) && [Code.NOT_FOUND, Code.PERMISSION_DENIED].includes(error.code)) return { teams: [] };
      throw error;
    });
  const team = teams.find((candidate) => candidate.orgId === ownerId && candidate.name.toLowerCase() === teamName.toLowerCase());
  if (team === undefined) throw teamNotExist;
  return { ownerId, teamId: team.id };
}

/** Readable repositories with `unit`, as repos decides for the caller. */
async function readableIds<B>(ctx: ApiContext<B>, viewer: Actor | undefined, unit: string, scope: { ownerId: number; teamId: number }): Promise<number[]> {
  const { repoIds } = await ctx.services.clients.repos.listReadableRepositoryIds({ viewer, units: [unit], ownerId: scope.ownerId, teamId: scope.teamId });
  return repoIds;
}

/** The page's repositories, as the caller may read them; issues of one they no longer may are left out. */
async function repositoriesOf<B>(ctx: ApiContext<B>, viewer: Actor | undefined, issues: readonly Issue[]): Promise<Map<number, Repository>> {
  const ids = [...new Set(issues.map((issue) => issue.repoId))];
  if (ids.length === 0) return new Map();
  const { repositories } = await ctx.services.clients.repos.batchGetRepositories({ viewer, ids });
  return new Map(repositories.flatMap(({ repository }) => (repository === undefined ? [] : [[repository.id, repository] as const])));
}

export function registerIssueSearchRoutes(api: ApiRegistry): void {
  api.route({
    scope: 'issue',
    auth: 'optional',
    method: 'get',
    path: '/repos/issues/search',
    operationId: 'issueSearchIssues',
    handler: async (ctx) => {
      const { before, since } = queryBeforeSince(ctx.query);
      const scope = await ownerAndTeam(ctx);
      // A token limited to public resources searches as an anonymous caller would: public repositories only.
      const viewer = isPublicOnly(ctx.caller) ? undefined : ctx.viewer;
      const signedIn = ctx.viewer !== undefined;
      const self = (param: string): number => (signedIn && goFormBool(ctx.query, param) ? (ctx.viewer?.userId ?? 0) : 0);
      const createdBy = await userIdForFilter(ctx.services, ctx.viewer, ctx.query, 'created_by');
      const type = goFormString(ctx.query, 'type');
      const filter: IssueFilter = {
        state: goFormString(ctx.query, 'state'),
        type,
        labels: commaList(ctx.query, 'labels', true),
        milestones: commaList(ctx.query, 'milestones', true),
        q: goFormString(ctx.query, 'q').trim(),
        since,
        before,
        createdById: self('created') || createdBy,
        assignedId: self('assigned'),
        mentionedId: self('mentioned'),
        reviewRequestedId: self('review_requested'),
        reviewedId: self('reviewed'),
      };
      const page = Math.max(goFormInt(ctx.query, 'page'), 1);
      const limit = correctPageSize(goFormInt(ctx.query, 'limit'), ctx.services.config.api);
      const [repoIds, pullRepoIds] = await Promise.all([
        type === 'pulls' ? Promise.resolve([]) : readableIds(ctx, viewer, UNIT_ISSUES, scope),
        type === 'issues' ? Promise.resolve([]) : readableIds(ctx, viewer, UNIT_PULLS, scope),
      ]);
      const { issues, total } =
        repoIds.length === 0 && pullRepoIds.length === 0
          ? { issues: [], total: 0 }
          : await ctx.services.clients.issues.searchIssues({ viewer: ctx.viewer, repoIds, pullRepoIds, filter, page: pageRequest(page, limit) });
      const repositories = await repositoriesOf(ctx, viewer, issues);
      ctx.setLinkHeader(total, limit);
      ctx.setTotalCount(total);
      const shown = issues.filter((issue) => repositories.has(issue.repoId));
      return json(200, await toApiIssues(ctx.services, ctx.viewer, shown, repositories));
    },
  });
}
