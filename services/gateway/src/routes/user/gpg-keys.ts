/**
 * GPG keys (routers/api/v1/user/gpg_key.go): the signed-in user's keys (list, add, get, remove) and anyone's
 * list. accounts parses and checks the keys; its refusals become Gitea's statuses here.
 */
import { CairnError, Code } from '@cairn/rpc';
import { HttpError, go, goStruct } from '@cairn/http';
import { toApiGpgKey } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, doerOf, json, noContent, type ApiContext } from '../../api/types';

/** Gitea's `api.CreateGPGKeyOption`. */
export const CreateGPGKeyOption = goStruct('CreateGPGKeyOption', {
  armored_public_key: go.string('ArmoredKey', { required: true }),
  armored_signature: go.string('Signature'),
});

const GPG_KEY_ERRORS = {
  // A key already registered is 422 in Gitea, a key naming none of the user's addresses 404.
  codes: { [Code.ALREADY_EXISTS]: 422 },
  reasons: {
    gpg_key_no_email: (error: Error) => new HttpError(404, error.message, { cause: error }),
    gpg_key_not_found: () => HttpError.notFound(),
  },
};

const ownKeysRoute = { scope: 'user', auth: 'required', denyPublicOnly: true, errors: GPG_KEY_ERRORS } as const;

async function listKeys<B>(ctx: ApiContext<B>, userId: number) {
  const { page, limit } = ctx.listOptions();
  const { keys, total } = await ctx.services.clients.gpgKeys.listGpgKeys({ viewer: ctx.viewer, userId, page: { page, limit } });
  ctx.setTotalCount(total);
  return json(200, keys.map(toApiGpgKey));
}

export function registerGpgKeyRoutes(api: ApiRegistry): void {
  api.route({
    ...ownKeysRoute,
    method: 'get',
    path: '/user/gpg_keys',
    operationId: 'userCurrentListGPGKeys',
    handler: (ctx) => listKeys(ctx, doerOf(ctx).id),
  });

  api.route({
    ...ownKeysRoute,
    method: 'post',
    path: '/user/gpg_keys',
    operationId: 'userCurrentPostGPGKey',
    body: CreateGPGKeyOption,
    handler: async (ctx) => {
      const { key } = await ctx.services.clients.gpgKeys.createGpgKey({
        actor: ctx.viewer,
        armoredPublicKey: ctx.body.armored_public_key,
        armoredSignature: ctx.body.armored_signature,
      });
      if (key === undefined) throw new Error('CreateGpgKey answered without a key');
      return json(201, toApiGpgKey(key));
    },
  });

  api.route({
    ...ownKeysRoute,
    method: 'get',
    path: '/user/gpg_keys/{id}',
    operationId: 'userCurrentGetGPGKey',
    handler: async (ctx) => {
      const { key } = await ctx.services.clients.gpgKeys.getGpgKey({ actor: ctx.viewer, id: pathInt64(ctx.params.id) });
      if (key === undefined) throw new Error('GetGpgKey answered without a key');
      return json(200, toApiGpgKey(key));
    },
  });

  api.route({
    ...ownKeysRoute,
    method: 'delete',
    path: '/user/gpg_keys/{id}',
    operationId: 'userCurrentDeleteGPGKey',
    handler: async (ctx) => {
      try {
        await ctx.services.clients.gpgKeys.deleteGpgKey({ actor: ctx.viewer, id: pathInt64(ctx.params.id) });
      } catch (error) {
        // Gitea answers 204 for a key the user does not have, deleting nothing.
        if (!(error instanceof CairnError && error.code === Code.NOT_FOUND)) throw error;
      }
      return noContent();
    },
  });

  api.route({
    method: 'get',
    path: '/users/{username}/gpg_keys',
    operationId: 'userListGPGKeys',
    scope: 'user',
    auth: 'optional',
    contextUser: 'visible',
    errors: GPG_KEY_ERRORS,
    handler: (ctx) => listKeys(ctx, contextUserOf(ctx).id),
  });
}
