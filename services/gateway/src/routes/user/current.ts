/** `GET /user` (routers/api/v1/user/user.go `GetAuthenticatedUser`): the signed-in user, in full. */
import type { ApiRegistry } from '../../api/registry';
import { doerOf, json } from '../../api/types';
import { toApiUser } from '../../convert/user';

export function registerCurrentUserRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/user',
    operationId: 'userGetCurrent',
    scope: 'user',
    auth: 'required',
    handler: async (ctx) => {
      const doer = doerOf(ctx);
      return json(200, toApiUser(doer, doer, { rootUrl: ctx.services.config.server.rootUrl }));
    },
  });
}
