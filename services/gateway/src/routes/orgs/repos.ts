/**
 * An organization's repositories (routers/api/v1/user/repo.go `ListOrgRepos`, repo/repo.go `CreateOrgRepo`): the
 * ones the caller may see, paged, and creating one — for organization owners, members of a team that may create
 * repositories (who then become its admins) and site admins; repos decides. The deprecated `POST
 * /org/{org}/repos` behaves exactly as `POST /orgs/{org}/repos`.
 */
import { accountNotFound } from '../../api/account-name';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type NamedAccount, ORGANIZATION_TYPE, json } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { CREATE_REPO_ERRORS, CreateRepoOption, createRepository } from '../../repos/create-repository';
import { listOwnerRepositories } from '../../repos/owner-repositories';
import { accountOf } from './params';

/** The `{org}` account, which must be an organization (a user's name is Gitea's GetOrgByName 404). */
export function organizationOf<B>(ctx: ApiContext<B>): NamedAccount {
  const account = accountOf(ctx, 'org');
  if (account.type !== ORGANIZATION_TYPE) throw accountNotFound('org', account.name);
  return account;
}

export function registerOrgRepoRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/orgs/{org}/repos',
    operationId: 'orgListRepos',
    scope: 'organization',
    auth: 'optional',
    handler: async (ctx) => {
      const page = ctx.listOptions();
      const { repositories, total } = await listOwnerRepositories({
        services: ctx.services,
        owner: organizationOf(ctx),
        viewer: ctx.viewer,
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, repositories);
    },
  });

  for (const [path, operationId] of [
    ['/orgs/{org}/repos', 'createOrgRepo'],
    ['/org/{org}/repos', 'createOrgRepoDeprecated'],
  ] as const) {
    api.route({
      method: 'post',
      path,
      operationId,
      scope: ['organization', 'repository'],
      auth: 'required',
      body: CreateRepoOption,
      errors: CREATE_REPO_ERRORS,
      handler: (ctx) => createRepository(ctx, organizationOf(ctx).name, ctx.body),
    });
  }
}
