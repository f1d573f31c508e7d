/**
 * `GET /users/{username}` (routers/api/v1/user/user.go `GetInfo`): a user as the caller may see them.
 * Users the caller may not see answer exactly as users that do not exist (accounts decides, with the lookup).
 */
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, json } from '../../api/types';
import { toApiUserWithCounts } from '../../social/user-counts';

export function registerUserLookupRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/users/{username}',
    operationId: 'userGet',
    scope: 'user',
    auth: 'optional',
    contextUser: 'visible',
    exploreSignIn: true,
    handler: async (ctx) =>
      json(200, await toApiUserWithCounts(ctx, contextUserOf(ctx))),
  });
}
