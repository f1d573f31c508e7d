/**
 * Webhook definitions (routers/api/v1/repo/hook.go, org/hook.go, user/hook.go, admin/hooks.go, all through
 * routers/api/v1/utils/hook.go): list, create, get, edit and delete the hooks of a repository (its admins), an
 * organization (its owners), the signed-in user, and the instance's system and default hooks (site admins), plus a
 * repository hook's test delivery. Every route answers 403 while `[security] DISABLE_WEB_HOOKS` is on (Gitea's
 * reqWebhooksEnabled, after the other guards).
 */
import { type CairnErrorMapping, HttpError, go, goFormString, goStruct } from '@cairn/http';
import { type HookOwner, HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import type { ApiRegistry } from '../../api/registry';
import { pathInt64 } from '../../api/path-int';
import { type ApiContext, type RouteSpec, doerOf, json, noContent, repoOf } from '../../api/types';
import { toApiHook } from '../../hooks/hook-json';
import { organizationOf } from '../orgs/repos';

/** Gitea's `api.CreateHookOption`. */
export const CreateHookOption = goStruct('CreateHookOption', {
  type: go.string('Type', { required: true }),
  config: go.stringMap('Config'),
  events: go.stringSlicePtr('Events'),
  branch_filter: go.string('BranchFilter'),
  authorization_header: go.string('AuthorizationHeader'),
  active: go.bool('Active'),
  name: go.string('Name'),
});

/** Gitea's `api.EditHookOption`: absent (nil) leaves the field as it is. */
export const EditHookOption = goStruct('EditHookOption', {
  config: go.stringMap('Config'),
  events: go.stringSlicePtr('Events'),
  branch_filter: go.stringPtr('BranchFilter'),
  authorization_header: go.stringPtr('AuthorizationHeader'),
  active: go.boolPtr('Active'),
  name: go.stringPtr('Name'),
});

const WEBHOOKS_DISABLED = 'webhooks disabled by administrator';

/** A hook the scope does not have is Gitea's bare `NotFound()`; a slack channel of only `#` is its 400. */
const HOOK_ERRORS: CairnErrorMapping = { reasons: { hook_not_found: () => HttpError.notFound(), invalid_slack_channel: 400 } };

/** Gitea's reqWebhooksEnabled. */
function requireWebhooksEnabled<B>(ctx: ApiContext<B>): void {
  if (ctx.services.config.security.disableWebhooks) throw HttpError.forbidden(WEBHOOKS_DISABLED);
}

/** Gitea's reqOrgOwnership: the organization's owners and site admins (403 `Must be an organization owner`). */
async function requireOrgOwner<B>(ctx: ApiContext<B>): Promise<HookOwner> {
  const org = organizationOf(ctx);
  const doer = doerOf(ctx);
  if (!doer.isAdmin && !(await ctx.services.clients.orgs.getOrgPermissions({ viewer: ctx.viewer, username: doer.login, org: org.name })).isOwner) {
    throw HttpError.forbidden('Must be an organization owner');
  }
  return { scope: HookScope.HOOK_SCOPE_ORGANIZATION, repoId: 0, ownerId: org.id };
}

/** Gitea's admin ListHooks `?type=`: system (the default), default, or all. */
function adminScopesOf<B>(ctx: ApiContext<B>): HookScope[] {
  switch (goFormString(ctx.query, 'type')) {
    case 'default':
      return [HookScope.HOOK_SCOPE_DEFAULT];
    case 'all':
      return [HookScope.HOOK_SCOPE_SYSTEM, HookScope.HOOK_SCOPE_DEFAULT];
    default:
      return [HookScope.HOOK_SCOPE_SYSTEM];
  }
}

const SYSTEM_OWNER: HookOwner = { scope: HookScope.HOOK_SCOPE_SYSTEM, repoId: 0, ownerId: 0 };

/** One scope's routes: where they are, who may call them, and whose hooks they manage. */
interface HookScopeRoutes {
  base: string;
  operationPrefix: string;
  guard: Pick<RouteSpec, 'scope' | 'auth' | 'repo' | 'denyPublicOnly'>;
  /** The owner of the scope's hooks, once the caller passed the guard (throws otherwise). */
  owner<B>(ctx: ApiContext<B>): Promise<HookOwner>;
  /** The owner a new hook gets when not the scope's (admin: system or default by `config.is_system_webhook`). */
  createOwner?(config: Readonly<Record<string, string>>): HookOwner;
  /** The scopes of the list (admin: `?type=`); empty: the owner's. */
  listScopes?<B>(ctx: ApiContext<B>): HookScope[];
}

const REPO_HOOKS: HookScopeRoutes = {
  base: '/repos/{owner}/{repo}/hooks',
  operationPrefix: 'repo',
  guard: { scope: 'repository', auth: 'required', repo: { mode: 'admin' } },
  owner: async (ctx) => ({ scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: repoOf(ctx).repository.id, ownerId: 0 }),
};

const SCOPES: readonly HookScopeRoutes[] = [
  REPO_HOOKS,
  {
    base: '/orgs/{org}/hooks',
    operationPrefix: 'org',
    guard: { scope: 'organization', auth: 'required' },
    owner: requireOrgOwner,
  },
  {
    base: '/user/hooks',
    operationPrefix: 'user',
    guard: { scope: 'user', auth: 'required', denyPublicOnly: true },
    owner: async (ctx) => ({ scope: HookScope.HOOK_SCOPE_USER, repoId: 0, ownerId: doerOf(ctx).id }),
  },
  {
    base: '/admin/hooks',
    operationPrefix: 'admin',
    guard: { scope: 'admin', auth: 'admin' },
    owner: async () => SYSTEM_OWNER,
    // Gitea's AddSystemHook: `is_system_webhook` "true" makes a system hook, anything else a default hook.
    createOwner: (config) => ({ ...SYSTEM_OWNER, scope: config.is_system_webhook === 'true' ? HookScope.HOOK_SCOPE_SYSTEM : HookScope.HOOK_SCOPE_DEFAULT }),
    listScopes: adminScopesOf,
  },
];

/** The owner of the route's hooks after every guard, Gitea's reqWebhooksEnabled last. */
async function ownerFor<B>(routes: HookScopeRoutes, ctx: ApiContext<B>): Promise<HookOwner> {
  const owner = await routes.owner(ctx);
  requireWebhooksEnabled(ctx);
  return owner;
}

function idOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.id);
}

function registerScope(api: ApiRegistry, routes: HookScopeRoutes): void {
  const { base, operationPrefix: prefix, guard } = routes;
  const common = { ...guard, errors: HOOK_ERRORS } as const;

  api.route({
    ...common,
    method: 'get',
    path: base,
    operationId: `${prefix}ListHooks`,
    handler: async (ctx) => {
      const owner = await ownerFor(routes, ctx);
      const { page, limit } = ctx.listOptions();
      const listed = await ctx.services.clients.hooks.listHooks({ owner, scopes: routes.listScopes?.(ctx) ?? [], page, limit });
      ctx.setLinkHeader(listed.total, limit);
      ctx.setTotalCount(listed.total);
      return json(200, listed.hooks.map(toApiHook));
    },
  });

  api.route({
    ...common,
    method: 'post',
    path: base,
    operationId: `${prefix}CreateHook`,
    body: CreateHookOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const owner = await ownerFor(routes, ctx);
      const { hook } = await ctx.services.clients.hooks.createHook({
        owner: routes.createOwner?.(body.config) ?? owner,
        type: body.type,
        config: body.config,
        events: body.events ?? [],
        eventsSet: body.events !== undefined,
        branchFilter: body.branch_filter,
        authorizationHeader: body.authorization_header,
        active: body.active,
        name: body.name,
      });
      if (hook === undefined) throw new Error('CreateHook answered without the hook');
      return json(201, toApiHook(hook));
    },
  });

  api.route({
    ...common,
    method: 'get',
    path: `${base}/{id}`,
    operationId: `${prefix}GetHook`,
    handler: async (ctx) => {
      const { hook } = await ctx.services.clients.hooks.getHook({ owner: await ownerFor(routes, ctx), id: idOf(ctx) });
      if (hook === undefined) throw new Error('GetHook answered without the hook');
      return json(200, toApiHook(hook));
    },
  });

  api.route({
    ...common,
    method: 'patch',
    path: `${base}/{id}`,
    operationId: `${prefix}EditHook`,
    body: EditHookOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const { hook } = await ctx.services.clients.hooks.editHook({
        owner: await ownerFor(routes, ctx),
        id: idOf(ctx),
        config: body.config,
        events: body.events ?? [],
        eventsSet: body.events !== undefined,
        branchFilter: body.branch_filter,
        authorizationHeader: body.authorization_header,
        active: body.active,
        name: body.name,
      });
      if (hook === undefined) throw new Error('EditHook answered without the hook');
      return json(200, toApiHook(hook));
    },
  });

  api.route({
    ...common,
    method: 'delete',
    path: `${base}/{id}`,
    operationId: `${prefix}DeleteHook`,
    handler: async (ctx) => {
      await ctx.services.clients.hooks.deleteHook({ owner: await ownerFor(routes, ctx), id: idOf(ctx) });
      return noContent();
    },
  });
}

export function registerHookRoutes(api: ApiRegistry): void {
  for (const routes of SCOPES) registerScope(api, routes);

  // Gitea's TestHook sits in the repository hooks' group, behind the same guards.
  api.route({
    ...REPO_HOOKS.guard,
    errors: HOOK_ERRORS,
    method: 'post',
    path: '/repos/{owner}/{repo}/hooks/{id}/tests',
    operationId: 'repoTestHook',
    handler: async (ctx) => {
      await ctx.services.clients.hooks.testHook({
        owner: await ownerFor(REPO_HOOKS, ctx),
        id: idOf(ctx),
        doerId: doerOf(ctx).id,
        ref: goFormString(ctx.query, 'ref'),
      });
      return noContent();
    },
  });
}
