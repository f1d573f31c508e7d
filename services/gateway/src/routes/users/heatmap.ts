/**
 * `GET /users/{username}/heatmap` (routers/api/v1/user/user.go `GetUserHeatmapData`): the user's contributions
 * per 15-minute bucket over the last year, as the caller may see them. Only the user's visibility guards it
 * (invisible: 404, renamed: 307), not `[ui.explore] REQUIRE_SIGNIN_VIEW`. What the caller sees of the activity
 * is notifications' decision: the gateway passes accounts' answer for the user's `hide_activity`.
 */
import { HttpError } from '@cairn/http';
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';

export function registerUserHeatmapRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/users/{username}/heatmap',
    operationId: 'userGetHeatmapData',
    scope: 'user',
    auth: 'optional',
    contextUser: 'visible',
    handler: async (ctx) => {
      // `[service] ENABLE_USER_HEATMAP = false`: Gitea does not register the route at all.
      if (!ctx.services.config.service.enableUserHeatmap) throw HttpError.notFound();
      const user = contextUserOf(ctx);
      const { buckets } = await ctx.services.clients.activity.getHeatmap({
        userId: user.id,
        viewer: ctx.viewer,
        keepActivityPrivate: user.keepActivityPrivate,
        publicOnly: isPublicOnly(ctx.caller),
      });
      return json(
        200,
        buckets.map((bucket) => ({ timestamp: bucket.timestamp, contributions: bucket.contributions })),
      );
    },
  });
}
