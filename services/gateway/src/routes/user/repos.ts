/**
 * The signed-in user's repositories (routers/api/v1/user/repo.go `ListMyRepos`, repo.go `Create`): every
 * repository they own or were given (collaborations, teams, organizations they own), paged, and creating one
 * in their own account. A token needs the user and repository scopes; a public-only one lists public repositories
 * only (Gitea 1.26.2, PR #37118).
 */
import type { ApiRegistry } from '../../api/registry';
import { isPublicOnly } from '../../auth/caller';
import { json } from '../../api/types';
import { CREATE_REPO_ERRORS, CreateRepoOption, createRepository } from '../../repos/create-repository';
import { repositoryPage } from '../../repos/repository-page';
import { pageOf } from '../orgs/params';

export function registerCurrentUserRepoRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/user/repos',
    operationId: 'userCurrentListRepos',
    scope: ['user', 'repository'],
    auth: 'required',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const answer = await ctx.services.clients.repos.listAccessibleRepositories({ viewer: ctx.viewer, page, publicOnly: isPublicOnly(ctx.caller) });
      return json(200, await repositoryPage(ctx, page.limit, answer));
    },
  });

  api.route({
    method: 'post',
    path: '/user/repos',
    operationId: 'createCurrentUserRepo',
    scope: ['user', 'repository'],
    auth: 'required',
    body: CreateRepoOption,
    errors: CREATE_REPO_ERRORS,
    handler: (ctx) => createRepository(ctx, '', ctx.body),
  });
}
