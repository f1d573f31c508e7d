/**
 * Personal access tokens (routers/api/v1/user/app.go): list, create, delete. Only the user themself or a
 * site admin, and only through Basic auth — a token cannot mint or list tokens on its own.
 */
import { Code } from '@cairn/rpc';
import { HttpError, go, goStruct } from '@cairn/http';
import { toApiAccessToken } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, doerOf, json, noContent } from '../../api/types';

/** Gitea's `api.CreateAccessTokenOption`. */
export const CreateAccessTokenOption = goStruct('CreateAccessTokenOption', {
  name: go.string('Name', { required: true }),
  scopes: go.stringSlice('Scopes'),
});

const tokenRoute = { scope: 'user', auth: 'basic', contextUser: 'visible', selfOrAdmin: true } as const;

export function registerTokenRoutes(api: ApiRegistry): void {
  api.route({
    ...tokenRoute,
    method: 'get',
    path: '/users/{username}/tokens',
    operationId: 'userGetTokens',
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      const { page, limit } = ctx.listOptions();
      const { tokens, total } = await ctx.services.clients.tokens.listAccessTokens({ userId: user.id, page: { page, limit } });
      ctx.setLinkHeader(total, limit);
      ctx.setTotalCount(total);
      return json(200, tokens.map((token) => toApiAccessToken(token)));
    },
  });

  api.route({
    ...tokenRoute,
    method: 'post',
    path: '/users/{username}/tokens',
    operationId: 'userCreateToken',
    body: CreateAccessTokenOption,
    // Gitea answers 400 for a used name, no scope and an unknown scope alike.
    errors: { codes: { [Code.ALREADY_EXISTS]: 400, [Code.INVALID_ARGUMENT]: 400 } },
    handler: async (ctx) => {
      const { token, sha1 } = await ctx.services.clients.tokens.createAccessToken({
        userId: contextUserOf(ctx).id,
        name: ctx.body.name,
        scopes: ctx.body.scopes,
        actorId: doerOf(ctx).id,
        // A token used as the basic-auth password may mint only tokens within its own scopes (accounts decides).
        creatorToken: ctx.caller.tokenScopes === undefined ? undefined : { scopes: ctx.caller.tokenScopes },
      });
      if (token === undefined) throw new Error('CreateAccessToken answered without a token');
      return json(201, toApiAccessToken(token, sha1));
    },
  });

  api.route({
    ...tokenRoute,
    method: 'delete',
    path: '/users/{username}/tokens/{token}',
    operationId: 'userDeleteAccessToken',
    // Unknown: Gitea's bare not-found; a name matching several tokens: 422 (FAILED_PRECONDITION's default).
    errors: { reasons: { token_not_found: () => HttpError.notFound() } },
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      await ctx.services.clients.tokens.deleteAccessToken({ userId: user.id, idOrName: ctx.params.token, actorId: doerOf(ctx).id });
      // This instance forgets at once; the others when the deletion event reaches them.
      ctx.services.tokenCache.forgetUser(user.id);
      return noContent();
    },
  });
}
