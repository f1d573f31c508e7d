/**
 * `GET /user` (routers/api/v1/user/user.go `GetAuthenticatedUser`): the signed-in user, in full — as accounts
 * authenticated them, which is how a user sees themself.
 */
import type { ApiRegistry } from '../../api/registry';
import { doerOf, json } from '../../api/types';
import { toApiUserWithCounts } from '../../social/user-counts';

export function registerCurrentUserRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/user',
    operationId: 'userGetCurrent',
    scope: 'user',
    auth: 'required',
    handler: async (ctx) => json(200, await toApiUserWithCounts(ctx, doerOf(ctx))),
  });
}
