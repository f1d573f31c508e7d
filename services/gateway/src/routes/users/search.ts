/**
 * `GET /users/search` (routers/api/v1/user/user.go `Search`): individual users the caller may see whose name,
 * full name or (readable) e-mail contains `q`, alphabetically, as `{ok, data}` with Link and X-Total-Count.
 * Anonymous callers need `[service.explore] REQUIRE_SIGNIN_VIEW` off; `DISABLE_USERS_PAGE` hides the route (404).
 */
import { HttpError, goFormInt, goFormString } from '@cairn/http';
import type { ApiRegistry } from '../../api/registry';
import { json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { toApiUsersWithCounts } from '../../social/user-counts';

export function registerUserSearchRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/users/search',
    operationId: 'userSearch',
    scope: 'user',
    auth: 'optional',
    exploreSignIn: true,
    handler: async (ctx) => {
      const { config } = ctx.services;
      if (config.explore.disableUsersPage) throw HttpError.notFound();
      const { page, limit } = ctx.listOptions();
      const { users, total } = await ctx.services.clients.users.searchUsers({
        viewer: ctx.viewer,
        keyword: goFormString(ctx.query, 'q').trim(),
        uid: goFormInt(ctx.query, 'uid'),
        page: { page, limit },
        publicOnly: isPublicOnly(ctx.caller),
      });
      ctx.setLinkHeader(total, limit);
      ctx.setTotalCount(total);
      return json(200, { ok: true, data: await toApiUsersWithCounts(ctx, users) });
    },
  });
}
