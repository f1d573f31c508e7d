/**
 * A repository's watchers (routers/api/v1/repo/subscriber.go, routers/api/v1/user/watch.go): the list
 * (`/subscribers`, paged with Link and X-Total-Count) and the signed-in user's own watch (`/subscription`:
 * GET answers Gitea's WatchInfo or 404 when not watching, PUT watches and answers it, DELETE unwatches, 204).
 */
import { HttpError, goTime } from '@cairn/http';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { repoApiUrl } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { doerOf, json, noContent, repoOf } from '../../api/types';
import { userListReply } from '../../social/lists';

/** Gitea's `api.WatchInfo`, keys in Gitea's order. */
export interface ApiWatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: null;
  created_at: string;
  url: string;
  repository_url: string;
}

/**
 * A watch as Gitea shows it: subscribed and not ignored (Cairn has no "ignore" mode yet), since when the user
 * watches (the field's documented meaning; Gitea itself fills in the repository's creation time).
 */
function toWatchInfo(rootUrl: string, repository: Repository, created: Date | undefined): ApiWatchInfo {
  const repositoryUrl = repoApiUrl(rootUrl, repository);
  return {
    subscribed: true,
    ignored: false,
    reason: null,
    created_at: goTime(created ?? repository.created ?? new Date(0)),
    url: `${repositoryUrl}/subscription`,
    repository_url: repositoryUrl,
  };
}

export function registerRepoWatcherRoutes(api: ApiRegistry): void {
  const route = { scope: 'repository', repo: { mode: 'read' } } as const;

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/subscribers',
    operationId: 'repoListSubscribers',
    auth: 'optional',
    handler: async (ctx) => {
      const { page, limit } = ctx.listOptions();
      const watchers = await ctx.services.clients.watches.listWatchers({ repoId: repoOf(ctx).repository.id, page: { page, limit } });
      return userListReply(ctx, watchers);
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/subscription',
    operationId: 'userCurrentCheckSubscription',
    auth: 'required',
    handler: async (ctx) => {
      const { repository } = repoOf(ctx);
      const { watching, created } = await ctx.services.clients.watches.getWatch({ userId: doerOf(ctx).id, repoId: repository.id });
      if (!watching) throw HttpError.notFound();
      return json(200, toWatchInfo(ctx.services.config.server.rootUrl, repository, created));
    },
  });

  api.route({
    ...route,
    method: 'put',
    path: '/repos/{owner}/{repo}/subscription',
    operationId: 'userCurrentPutSubscription',
    auth: 'required',
    handler: async (ctx) => {
      const { repository } = repoOf(ctx);
      const { created } = await ctx.services.clients.watches.watch({ userId: doerOf(ctx).id, repoId: repository.id });
      return json(200, toWatchInfo(ctx.services.config.server.rootUrl, repository, created));
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/repos/{owner}/{repo}/subscription',
    operationId: 'userCurrentDeleteSubscription',
    auth: 'required',
    handler: async (ctx) => {
      await ctx.services.clients.watches.unwatch({ userId: doerOf(ctx).id, repoId: repoOf(ctx).repository.id });
      return noContent();
    },
  });
}
