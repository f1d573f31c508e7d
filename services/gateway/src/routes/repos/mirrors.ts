/**
 * Mirrors (routers/api/v1/repo/mirror.go): `POST …/mirror-sync` queues a pull mirror's sync (code writers), and a
 * repository's push mirrors — list, add, get, delete, push all now (repository admins). The migrations service
 * keeps the mirrors and applies `[mirror]` and the `[migrations]` host policy; Gitea answers its refusals 400 but a
 * remote it may not use, which is 401 "Permission denied" (HandleRemoteAddressError).
 */
import { HttpError, go, goStruct } from '@cairn/http';
import { Code } from '@cairn/rpc';
import { UNIT_CODE, toApiPushMirror } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { json, noContent, repoOf } from '../../api/types';
import { pageOf } from '../orgs/params';

/** Gitea's `CreatePushMirrorOption`. */
export const CreatePushMirrorOption = goStruct('CreatePushMirrorOption', {
  remote_address: go.string('RemoteAddress'),
  remote_username: go.string('RemoteUsername'),
  remote_password: go.string('RemotePassword'),
  interval: go.string('Interval'),
  sync_on_commit: go.bool('SyncOnCommit'),
});

const MIRROR_ERRORS = {
  codes: { [Code.FAILED_PRECONDITION]: 400, [Code.INVALID_ARGUMENT]: 400 },
  reasons: {
    host_refused: () => HttpError.unauthorized('Permission denied'),
    // Gitea's bare APIError(404, nil) for a remote name the repository has no mirror of.
    push_mirror_not_found: () => HttpError.notFound(),
  },
};

export function registerMirrorRoutes(api: ApiRegistry): void {
  api.route({
    method: 'post',
    path: '/repos/{owner}/{repo}/mirror-sync',
    operationId: 'repoMirrorSync',
    scope: 'repository',
    auth: 'required',
    repo: { unit: UNIT_CODE, mode: 'write', archived: 'refuse' },
    errors: MIRROR_ERRORS,
    handler: async (ctx) => {
      await ctx.services.clients.migrations.syncMirror({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id });
      return { status: 200 };
    },
  });

  const admin = { scope: 'repository', auth: 'required', repo: { mode: 'admin' }, errors: MIRROR_ERRORS } as const;
  const changing = { ...admin, repo: { mode: 'admin', archived: 'refuse' } } as const;

  api.route({
    ...changing,
    method: 'post',
    path: '/repos/{owner}/{repo}/push_mirrors-sync',
    operationId: 'repoPushMirrorSync',
    handler: async (ctx) => {
      await ctx.services.clients.migrations.syncPushMirrors({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id });
      return { status: 200 };
    },
  });

  api.route({
    ...admin,
    method: 'get',
    path: '/repos/{owner}/{repo}/push_mirrors',
    operationId: 'repoListPushMirrors',
    handler: async (ctx) => {
      const repository = repoOf(ctx).repository;
      const page = pageOf(ctx);
      const { pushMirrors, total } = await ctx.services.clients.migrations.listPushMirrors({ actor: ctx.viewer, repoId: repository.id, page });
      // Gitea's ListPushMirrors sets Link from the page's length, X-Total-Count from the total.
      ctx.setLinkHeader(pushMirrors.length, page.limit);
      ctx.setTotalCount(total);
      return json(200, pushMirrors.map((mirror) => toApiPushMirror(mirror, repository.name)));
    },
  });

  api.route({
    ...changing,
    method: 'post',
    path: '/repos/{owner}/{repo}/push_mirrors',
    operationId: 'repoAddPushMirror',
    body: CreatePushMirrorOption,
    handler: async (ctx) => {
      const repository = repoOf(ctx).repository;
      const { body } = ctx;
      const { pushMirror } = await ctx.services.clients.migrations.addPushMirror({
        actor: ctx.viewer,
        repoId: repository.id,
        remoteAddress: body.remote_address,
        remoteUsername: body.remote_username,
        remotePassword: body.remote_password,
        interval: body.interval,
        syncOnCommit: body.sync_on_commit,
      });
      if (pushMirror === undefined) throw new Error('AddPushMirror answered without the mirror');
      return json(200, toApiPushMirror(pushMirror, repository.name));
    },
  });

  api.route({
    ...admin,
    method: 'get',
    path: '/repos/{owner}/{repo}/push_mirrors/{name}',
    operationId: 'repoGetPushMirrorByRemoteName',
    handler: async (ctx) => {
      const repository = repoOf(ctx).repository;
      const { pushMirror } = await ctx.services.clients.migrations.getPushMirror({ actor: ctx.viewer, repoId: repository.id, remoteName: ctx.params.name });
      if (pushMirror === undefined) throw new Error('GetPushMirror answered without the mirror');
      return json(200, toApiPushMirror(pushMirror, repository.name));
    },
  });

  api.route({
    ...changing,
    method: 'delete',
    path: '/repos/{owner}/{repo}/push_mirrors/{name}',
    operationId: 'repoDeletePushMirror',
    handler: async (ctx) => {
      await ctx.services.clients.migrations.deletePushMirror({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, remoteName: ctx.params.name });
      return noContent();
    },
  });
}
