/**
 * Collaborators (routers/api/v1/repo/collaborators.go): list them (X-Total-Count), check one (204 when a
 * collaborator, else 404), add or update with a permission and remove (repository admins, 204), and a user's
 * permission in the repository (site admins, repository admins, or the user themself). repos keeps the
 * collaborations and decides; users come back as ids and are hydrated with one accounts batch.
 */
import { HttpError, go, goStruct } from '@cairn/http';
import { isCairnError } from '@cairn/rpc';
import { type ApiUser, accessAtLeast } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, doerOf, json, noContent, repoOf } from '../../api/types';
import { toApiUsersWithCounts } from '../../social/user-counts';
import { pageOf } from '../orgs/params';

/** Gitea's `AddCollaboratorOption`: read, write or admin; none is write. */
export const AddCollaboratorOption = goStruct('AddCollaboratorOption', {
  permission: go.stringPtr('Permission'),
});

export const PERMISSION_QUERY_DENIED_MESSAGE =
  'Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own';

/** An unknown `{collaborator}` is 422 on the collaborator routes (Gitea's GetUserByName failure). */
const COLLABORATOR_ERRORS = { reasons: { user_not_found: 422 } };

function collaboratorOf<B>(ctx: ApiContext<B>): string {
  return ctx.params.collaborator ?? '';
}

/** The users behind `ids`, in that order, as the caller may see them: one BatchGetUsers. */
async function usersInOrder<B>(ctx: ApiContext<B>, ids: readonly number[]): Promise<ApiUser[]> {
  if (ids.length === 0) return [];
  const { users } = await ctx.services.clients.users.batchGetUsers({ ids: [...ids], viewer: ctx.viewer });
  const byId = new Map(users.map((user) => [user.id, user]));
  return toApiUsersWithCounts(ctx, ids.flatMap((id) => byId.get(id) ?? []));
}

export function registerCollaboratorRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/collaborators',
    operationId: 'repoListCollaborators',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      const { collaborators, total } = await ctx.services.clients.collaborators.listCollaborators({
        viewer: ctx.viewer,
        repoId: repoOf(ctx).repository.id,
        page: pageOf(ctx),
      });
      ctx.setTotalCount(total);
      return json(200, await usersInOrder(ctx, collaborators.map((collaborator) => collaborator.userId)));
    },
  });

  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
    operationId: 'repoCheckCollaborator',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    errors: COLLABORATOR_ERRORS,
    handler: async (ctx) => {
      const { collaborator } = await ctx.services.clients.collaborators.isCollaborator({
        viewer: ctx.viewer,
        repoId: repoOf(ctx).repository.id,
        username: collaboratorOf(ctx),
      });
      if (!collaborator) throw HttpError.notFound();
      return noContent();
    },
  });

  api.route({
    method: 'put',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
    operationId: 'repoAddCollaborator',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    body: AddCollaboratorOption,
    errors: COLLABORATOR_ERRORS,
    handler: async (ctx) => {
      await ctx.services.clients.collaborators.addCollaborator({
        actor: ctx.viewer,
        repoId: repoOf(ctx).repository.id,
        username: collaboratorOf(ctx),
        permission: ctx.body.permission ?? '',
      });
      return noContent();
    },
  });

  api.route({
    method: 'delete',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
    operationId: 'repoDeleteCollaborator',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    errors: COLLABORATOR_ERRORS,
    handler: async (ctx) => {
      try {
        await ctx.services.clients.collaborators.removeCollaborator({
          actor: ctx.viewer,
          repoId: repoOf(ctx).repository.id,
          username: collaboratorOf(ctx),
        });
      } catch (error) {
        // Gitea's DeleteCollaboration deletes nothing and succeeds when the user is no collaborator.
        if (!(isCairnError(error) && error.reason === 'collaborator_not_found')) throw error;
      }
      return noContent();
    },
  });

  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission',
    operationId: 'repoGetRepoPermissions',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    // Here an unknown user is 404, with the lookup's message.
    errors: { reasons: { user_not_found: (error) => new HttpError(404, error.message) } },
    handler: async (ctx) => {
      const doer = doerOf(ctx);
      const name = collaboratorOf(ctx);
      const self = doer.login.toLowerCase() === name.toLowerCase();
      if (!doer.isAdmin && !self && !accessAtLeast(repoOf(ctx).permission.accessMode, 'admin')) {
        throw HttpError.forbidden(PERMISSION_QUERY_DENIED_MESSAGE);
      }
      const answer = await ctx.services.clients.collaborators.getUserPermission({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id, username: name });
      const [user] = await usersInOrder(ctx, [answer.userId]);
      if (user === undefined) throw new Error('GetUserPermission named a user accounts does not have');
      return json(200, { permission: answer.permission, role_name: answer.roleName, user });
    },
  });
}
