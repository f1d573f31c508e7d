/**
 * Watched repositories from the user's side (routers/api/v1/user/watch.go `GetMyWatchedRepos`,
 * `GetWatchedRepos`): the signed-in user's and another user's, paged (Link, X-Total-Count) and limited to those
 * the caller may read (others' lists to public repositories, as Gitea's).
 */
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, doerOf } from '../../api/types';
import { repositoryListReply } from '../../social/lists';

export function registerSubscriptionRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/user/subscriptions',
    operationId: 'userCurrentListSubscriptions',
    scope: 'user',
    auth: 'required',
    handler: async (ctx) => {
      const { repoIds } = await ctx.services.clients.watches.listWatchedRepos({ userId: doerOf(ctx).id });
      return repositoryListReply(ctx, { repoIds, includePrivate: true });
    },
  });

  api.route({
    method: 'get',
    path: '/users/{username}/subscriptions',
    operationId: 'userListSubscriptions',
    scope: 'user',
    auth: 'required',
    contextUser: 'visible',
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      const { repoIds } = await ctx.services.clients.watches.listWatchedRepos({ userId: user.id });
      return repositoryListReply(ctx, { repoIds, includePrivate: user.id === doerOf(ctx).id });
    },
  });
}
