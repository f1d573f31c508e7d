/**
 * Forks (routers/api/v1/repo/fork.go): list the forks the caller may read (Link, X-Total-Count), and fork into
 * the caller's account or an organization they may create repositories in — 202 with the fork, whose `parent` is
 * the base. repos checks the target and creates the fork's git repository.
 */
import { go, goStruct } from '@cairn/http';
import { Code } from '@cairn/rpc';
import { UNIT_CODE, toApiRepository } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { json, repoOf } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { repositoryPage } from '../../repos/repository-page';
import { pageOf } from '../orgs/params';

/** Gitea's `CreateForkOption`: no organization forks into the caller's account, no name keeps the base's. */
export const CreateForkOption = goStruct('CreateForkOption', {
  organization: go.stringPtr('Organization'),
  name: go.stringPtr('Name'),
});

export function registerForkRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/forks',
    operationId: 'listForks',
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const answer = await ctx.services.clients.repos.listForks({
        viewer: ctx.viewer,
        id: repoOf(ctx).repository.id,
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      return json(200, await repositoryPage(ctx, page.limit, answer));
    },
  });

  api.route({
    method: 'post',
    path: '/repos/{owner}/{repo}/forks',
    operationId: 'createFork',
    scope: 'repository',
    auth: 'required',
    repo: { unit: UNIT_CODE, mode: 'read' },
    body: CreateForkOption,
    // The target already has the name, or a fork of this repository: 409, as Gitea's ErrAlreadyExist.
    errors: { codes: { [Code.ALREADY_EXISTS]: 409 } },
    handler: async (ctx) => {
      const { repository } = await ctx.services.clients.repos.forkRepository({
        actor: ctx.viewer,
        id: repoOf(ctx).repository.id,
        organization: ctx.body.organization ?? '',
        name: ctx.body.name ?? '',
      });
      if (repository === undefined) throw new Error('ForkRepository answered without a repository');
      return json(202, await toApiRepository(ctx.services, ctx.viewer, repository));
    },
  });
}
