/**
 * Repository transfer (routers/api/v1/repo/transfer.go): the owner hands the repository to a user or
 * organization — at once (202) when they may create repositories there, else as a pending transfer the recipient
 * accepts (202) or rejects (200); pending is answered 201. repos decides which, and checks the new owner and teams.
 */
import { HttpError, go, goStruct } from '@cairn/http';
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type CairnError, Code } from '@cairn/rpc';
import { toApiRepository } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, repoOf } from '../../api/types';

/** Gitea's `TransferRepoOption`. */
export const TransferRepoOption = goStruct('TransferRepoOption', {
  new_owner: go.string('NewOwner'),
  team_ids: go.int64Slice('TeamIDs'),
});

/**
 * Gitea's answers for a failed transfer: an unknown (or hidden) new owner is 404 with its message, a target that
 * already has the name 422, a transfer already under way 409.
 */
const TRANSFER_ERRORS = {
  codes: { [Code.ALREADY_EXISTS]: 422 },
  reasons: { transfer_in_progress: 409, owner_not_found: (error: CairnError) => new HttpError(404, error.message) },
};

/** Accepting or rejecting when nothing is pending: Gitea's bare 404. */
const PENDING_TRANSFER_ERRORS = { reasons: { transfer_not_found: () => HttpError.notFound() } };

async function repositoryReply<B>(ctx: ApiContext<B>, status: number, repository: RepositoryWithPermission | undefined): Promise<ApiReply> {
  if (repository === undefined) throw new Error('the transfer call answered without a repository');
  return json(status, await toApiRepository(ctx.services, ctx.viewer, repository));
}

export function registerTransferRoutes(api: ApiRegistry): void {
  api.route({
    method: 'post',
    path: '/repos/{owner}/{repo}/transfer',
    operationId: 'repoTransfer',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'owner' },
    body: TransferRepoOption,
    errors: TRANSFER_ERRORS,
    handler: async (ctx) => {
      const { repository, pending } = await ctx.services.clients.repos.transferRepository({
        actor: ctx.viewer,
        id: repoOf(ctx).repository.id,
        newOwner: ctx.body.new_owner,
        teamIds: ctx.body.team_ids,
      });
      return repositoryReply(ctx, pending ? 201 : 202, repository);
    },
  });

  api.route({
    method: 'post',
    path: '/repos/{owner}/{repo}/transfer/accept',
    operationId: 'acceptRepoTransfer',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    errors: PENDING_TRANSFER_ERRORS,
    handler: async (ctx) => {
      const { repository } = await ctx.services.clients.repos.acceptTransfer({ actor: ctx.viewer, id: repoOf(ctx).repository.id });
      return repositoryReply(ctx, 202, repository);
    },
  });

  api.route({
    method: 'post',
    path: '/repos/{owner}/{repo}/transfer/reject',
    operationId: 'rejectRepoTransfer',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    errors: PENDING_TRANSFER_ERRORS,
    handler: async (ctx) => {
      const { repository } = await ctx.services.clients.repos.rejectTransfer({ actor: ctx.viewer, id: repoOf(ctx).repository.id });
      return repositoryReply(ctx, 200, repository);
    },
  });
}
