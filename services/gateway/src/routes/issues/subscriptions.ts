/**
 * Issue subscriptions (routers/api/v1/repo/issue_subscription.go). The issues service keeps the explicit
 * subscriptions and decides Gitea's CheckIssueWatch; whether a user watches the repository is social's, so this
 * asks social (GetWatch) and hands the answer over.
 * - `GET …/subscriptions`: the explicitly subscribed users (no token needed), paged, X-Total-Count; each page's
 *   users in name order (Gitea's GetUsersByIDs), shaped for the caller.
 * - `GET …/subscriptions/check` (token): Gitea's WatchInfo for the caller.
 * - `PUT`/`DELETE …/subscriptions/{user}` (token): the user themselves or a site admin (403 `<doer> is not
 *   permitted to change subscriptions for <user>`); an unknown user or issue is a bare 404; 201 when the
 *   subscription changed, 200 when it already was as asked, both without a body.
 */
import { HttpError, goTime } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import { issueApiUrl, repoApiUrl, toApiUser } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, doerOf, json, repoOf } from '../../api/types';
import { repoScopeOf } from '../../issues/scope';
import { trackerAnswer } from '../../issues/tracker-answers';
import { pageOf } from '../orgs/params';

const PATH = '/repos/{owner}/{repo}/issues/{index}/subscriptions';

/** Whether `userId` watches the route's repository (social's watches; Gitea's IsWatchMode). */
async function watchesRepository<B>(ctx: ApiContext<B>, userId: number): Promise<boolean> {
  const { watching } = await ctx.services.clients.watches.getWatch({ userId, repoId: repoOf(ctx).repository.id });
  return watching;
}

/** The `{user}` account by its current name (Gitea's GetUserByName: an old name is no user), or a bare 404. */
async function pathUser<B>(ctx: ApiContext<B>): Promise<{ id: number; name: string }> {
  try {
    const resolved = await ctx.services.clients.users.resolveName({ name: ctx.params.user ?? '', viewer: ctx.viewer });
    if (!resolved.redirect && resolved.id > 0) return { id: resolved.id, name: resolved.name };
  } catch (error) {
    if (!isCairnError(error)) throw error;
    // NOT_FOUND (or a name that cannot be one) is the 404 below; anything else is the service's failure.
    if (error.code !== Code.NOT_FOUND && error.code !== Code.INVALID_ARGUMENT) throw error;
  }
  throw HttpError.notFound();
}

async function setSubscription<B>(ctx: ApiContext<B>, subscribed: boolean): Promise<ApiReply> {
  const doer = doerOf(ctx);
  return trackerAnswer(async () => {
    const user = await pathUser(ctx);
    try {
      const { changed } = await ctx.services.clients.issueSubscriptions.setSubscription({
        scope: repoScopeOf(ctx),
        index: pathInt64(ctx.params.index),
        userId: user.id,
        subscribed,
        watchesRepository: await watchesRepository(ctx, user.id),
      });
      return { status: changed ? 201 : 200 };
    } catch (error) {
      if (isCairnError(error) && error.reason === 'subscription_of_other_user') {
        throw HttpError.forbidden(`${doer.login} is not permitted to change subscriptions for ${user.name}`);
      }
      throw error;
    }
  });
}

export function registerIssueSubscriptionRoutes(api: ApiRegistry): void {
  const route = { scope: 'issue', repo: { mode: 'read' } } as const;

  api.route({
    ...route,
    auth: 'optional',
    method: 'get',
    path: PATH,
    operationId: 'issueSubscriptions',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const { userIds, total } = await ctx.services.clients.issueSubscriptions.listSubscribers({
          scope: repoScopeOf(ctx),
          index: pathInt64(ctx.params.index),
          page: pageOf(ctx),
        });
        const { users } = userIds.length === 0 ? { users: [] } : await ctx.services.clients.users.batchGetUsers({ ids: userIds, viewer: ctx.viewer });
        const rootUrl = ctx.services.config.server.rootUrl;
        const sorted = [...users].sort((a, b) => (a.login < b.login ? -1 : a.login > b.login ? 1 : 0));
        ctx.setTotalCount(total);
        return json(200, sorted.map((user) => toApiUser(user, { rootUrl })));
      }),
  });

  api.route({
    ...route,
    auth: 'required',
    method: 'get',
    path: `${PATH}/check`,
    operationId: 'issueCheckSubscription',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const doer = doerOf(ctx);
        const index = pathInt64(ctx.params.index);
        const { subscribed, issueCreated } = await ctx.services.clients.issueSubscriptions.checkSubscription({
          scope: repoScopeOf(ctx),
          index,
          watchesRepository: await watchesRepository(ctx, doer.id),
        });
        const rootUrl = ctx.services.config.server.rootUrl;
        const { repository } = repoOf(ctx);
        return json(200, {
          subscribed,
          ignored: !subscribed,
          reason: null,
          // Gitea's WatchInfo.created_at: the issue's creation.
          created_at: goTime(issueCreated),
          url: `${issueApiUrl(rootUrl, repository, { index })}/subscriptions`,
          repository_url: repoApiUrl(rootUrl, repository),
        });
      }),
  });

  api.route({
    ...route,
    auth: 'required',
    method: 'put',
    path: `${PATH}/{user}`,
    operationId: 'issueAddSubscription',
    handler: (ctx) => setSubscription(ctx, true),
  });

  api.route({
    ...route,
    auth: 'required',
    method: 'delete',
    path: `${PATH}/{user}`,
    operationId: 'issueDeleteSubscription',
    handler: (ctx) => setSubscription(ctx, false),
  });
}
