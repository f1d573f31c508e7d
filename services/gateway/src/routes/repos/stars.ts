/**
 * `GET /repos/{owner}/{repo}/stargazers` (routers/api/v1/repo/star.go `ListStargazers`): the users who starred a
 * repository the caller may read, oldest first, paged (Link, X-Total-Count); 403 when stars are disabled.
 */
import type { ApiRegistry } from '../../api/registry';
import { repoOf } from '../../api/types';
import { userListReply } from '../../social/lists';
import { assertStarsEnabled } from '../../social/stars-enabled';

export function registerRepoStarRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/stargazers',
    operationId: 'repoListStargazers',
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      const { page, limit } = ctx.listOptions();
      const stargazers = await ctx.services.clients.stars.listStargazers({ repoId: repoOf(ctx).repository.id, page: { page, limit } });
      return userListReply(ctx, stargazers);
    },
  });
}
