/**
 * `GET /users/{username}/repos` (routers/api/v1/user/repo.go `ListUserRepos`): the repositories a visible user
 * owns that the caller may see, paged (Link, X-Total-Count). A token needs the user and repository scopes.
 */
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { listOwnerRepositories } from '../../repos/owner-repositories';

export function registerUserRepoRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/users/{username}/repos',
    operationId: 'userListRepos',
    scope: ['user', 'repository'],
    auth: 'optional',
    contextUser: 'visible',
    exploreSignIn: true,
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      const page = ctx.listOptions();
      const { repositories, total } = await listOwnerRepositories({
        services: ctx.services,
        owner: { id: user.id, type: user.type, name: user.login, visibility: user.visibility },
        viewer: ctx.viewer,
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, repositories);
    },
  });
}
