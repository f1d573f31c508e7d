/**
 * `GET /repos/search` (routers/api/v1/repo/repo.go `Search`): the repositories the caller may read that match, as
 * `{ok, data}` with Link and X-Total-Count. The query is read as Gitea reads it; `starredBy` becomes the ids
 * social says that user starred. repos filters by access, checks mode, sort and order (422 with Gitea's messages)
 * and pages.
 */
import { type GoValues, goFormBool, goFormInt, goFormString } from '@cairn/http';
import type { SearchRepositoriesRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ApiRegistry } from '../../api/registry';
import { json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { repositoryPage } from '../../repos/repository-page';

/** A filter that is "either" unless the parameter is given (Gitea: `FormString(x) != ""`, then `FormBool(x)`). */
function optionalBool(query: GoValues, name: string): boolean | undefined {
  return goFormString(query, name) === '' ? undefined : goFormBool(query, name);
}

/** The search as repos takes it. */
export function searchRequestOf(query: GoValues, signedIn: boolean, publicOnly: boolean): Omit<SearchRepositoriesRequest, 'viewer' | 'page' | 'onlyIds' | 'restrictToIds'> {
  // Gitea's `private`: signed-in callers see private repositories they may read unless they pass private=false;
  // anonymous callers and public-only tokens never do. Without it, only public repositories are searched.
  const includePrivate = signedIn && !publicOnly && (goFormString(query, 'private') === '' || goFormBool(query, 'private'));
  return {
    keyword: goFormString(query, 'q').trim(),
    includeDescription: goFormBool(query, 'includeDesc'),
    ownerId: goFormInt(query, 'uid'),
    exclusive: goFormBool(query, 'exclusive'),
    isPrivate: includePrivate ? optionalBool(query, 'is_private') : false,
    template: optionalBool(query, 'template'),
    archived: optionalBool(query, 'archived'),
    mode: goFormString(query, 'mode'),
    sort: goFormString(query, 'sort'),
    order: goFormString(query, 'order'),
    topic: goFormBool(query, 'topic'),
    teamId: goFormInt(query, 'team_id'),
    publicOnly,
  };
}

export function registerRepoSearchRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/search',
    operationId: 'repoSearch',
    scope: 'repository',
    auth: 'optional',
    handler: async (ctx) => {
      const search = searchRequestOf(ctx.query, ctx.doer !== undefined, isPublicOnly(ctx.caller));
      const starredBy = goFormInt(ctx.query, 'starredBy');
      const onlyIds = starredBy > 0 ? (await ctx.services.clients.stars.listStarredRepos({ userId: starredBy })).repoIds : [];
      const { page, limit } = ctx.listOptions();
      const answer = await ctx.services.clients.repos.searchRepositories({
        viewer: ctx.viewer,
        page: { page, limit },
        ...search,
        onlyIds,
        restrictToIds: starredBy > 0,
      });
      return json(200, { ok: true, data: await repositoryPage(ctx, limit, answer) });
    },
  });
}
