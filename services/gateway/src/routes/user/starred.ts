/**
 * Stars from the user's side (routers/api/v1/user/star.go): the signed-in user's starred repositories and
 * another user's, paged (Link, X-Total-Count) and limited to those the caller may read (others' lists to public
 * repositories, as Gitea's); checking, giving and taking back a star (204; 404 when not starred). Every route
 * answers 403 when stars are disabled.
 */
import { HttpError } from '@cairn/http';
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, doerOf, noContent, repoOf, type ApiContext } from '../../api/types';
import { repositoryListReply } from '../../social/lists';
import { assertStarsEnabled } from '../../social/stars-enabled';

/** The doer and the `{owner}/{repo}` repository, as StarService names a star. */
function starOf<B>(ctx: ApiContext<B>): { userId: number; repoId: number } {
  return { userId: doerOf(ctx).id, repoId: repoOf(ctx).repository.id };
}

export function registerStarredRoutes(api: ApiRegistry): void {
  // Gitea's `/user/starred` group: the user scope, then the repository scope.
  const route = { scope: ['user', 'repository'], auth: 'required' } as const;

  api.route({
    ...route,
    method: 'get',
    path: '/user/starred',
    operationId: 'userCurrentListStarred',
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      const { repoIds } = await ctx.services.clients.stars.listStarredRepos({ userId: doerOf(ctx).id });
      return repositoryListReply(ctx, { repoIds, includePrivate: true });
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/user/starred/{owner}/{repo}',
    operationId: 'userCurrentCheckStarring',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      const { starred } = await ctx.services.clients.stars.isStarred(starOf(ctx));
      if (!starred) throw HttpError.notFound();
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'put',
    path: '/user/starred/{owner}/{repo}',
    operationId: 'userCurrentPutStar',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      await ctx.services.clients.stars.star(starOf(ctx));
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/user/starred/{owner}/{repo}',
    operationId: 'userCurrentDeleteStar',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      await ctx.services.clients.stars.unstar(starOf(ctx));
      return noContent();
    },
  });

  api.route({
    method: 'get',
    path: '/users/{username}/starred',
    operationId: 'userListStarred',
    scope: 'user',
    auth: 'required',
    contextUser: 'visible',
    handler: async (ctx) => {
      assertStarsEnabled(ctx.services);
      const user = contextUserOf(ctx);
      const { repoIds } = await ctx.services.clients.stars.listStarredRepos({ userId: user.id });
      return repositoryListReply(ctx, { repoIds, includePrivate: user.id === doerOf(ctx).id });
    },
  });
}
