/**
 * A hook's delivery history and redelivery — a Cairn departure with GitHub's paths (`…/hooks/{id}/deliveries`,
 * `…/deliveries/{uuid}/attempts`): Gitea shows the history and its "replay" only in the web UI
 * (routers/web/repo/setting/webhook.go WebHooksEdit, ReplayWebhook). Guards as the hook routes of each scope
 * (routers/api/v1/api.go): repository admin, organization owner, the user themself, site admin; 403 `webhooks disabled
 * by administrator` while `[security] DISABLE_WEB_HOOKS` holds. The hooks service answers NOT_FOUND for a hook outside
 * the scope named.
 */
import { HttpError } from '@cairn/http';
import { type HookDelivery, type HookOwner, HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import type { ApiRegistry } from '../../api/registry';
import { pathInt64 } from '../../api/path-int';
import { type ApiContext, type RouteSpec, doerOf, json, repoOf } from '../../api/types';
import type { SwaggerOperation } from '../../swagger/document';
import { organizationOf } from '../orgs/repos';

/** The JSON of one delivery. */
export interface ApiHookDelivery {
  id: number;
  uuid: string;
  hook_id: number;
  event: string;
  event_type: string;
  state: string;
  is_succeed: boolean;
  attempts: number;
  request: unknown;
  response: unknown;
  payload: unknown;
  created_at: string;
  delivered_at: string | null;
  redelivery_of: string | null;
}

const parsed = (text: string): unknown => (text === '' ? null : (JSON.parse(text) as unknown));

export function toApiHookDelivery(delivery: HookDelivery): ApiHookDelivery {
  return {
    id: delivery.id,
    uuid: delivery.uuid,
    hook_id: delivery.hookId,
    event: delivery.event,
    event_type: delivery.eventType,
    state: delivery.state,
    is_succeed: delivery.isSucceed,
    attempts: delivery.attempts,
    request: parsed(delivery.requestJson),
    response: parsed(delivery.responseJson),
    payload: parsed(delivery.payloadJson),
    created_at: (delivery.created ?? new Date(0)).toISOString(),
    delivered_at: delivery.delivered?.toISOString() ?? null,
    redelivery_of: delivery.redeliveryOf === '' ? null : delivery.redeliveryOf,
  };
}

/** Each scope's routes: where they are, their guard, and the owner they name. */
interface ScopeRoutes {
  prefix: string;
  tag: string;
  operationPrefix: string;
  pathParameters: readonly unknown[];
  guard: Pick<RouteSpec, 'scope' | 'auth' | 'repo' | 'denyPublicOnly'>;
  owner(ctx: ApiContext<undefined>): Promise<HookOwner>;
}

const stringPath = (name: string, description: string) => ({ type: 'string', description, name, in: 'path', required: true });
const REPO_PARAMETERS = [stringPath('owner', 'owner of the repo'), stringPath('repo', 'name of the repo')];

const SCOPES: readonly ScopeRoutes[] = [
  {
    prefix: '/repos/{owner}/{repo}/hooks',
    tag: 'repository',
    operationPrefix: 'repo',
    pathParameters: REPO_PARAMETERS,
    guard: { scope: 'repository', auth: 'required', repo: { mode: 'admin' } },
    owner: (ctx) => Promise.resolve({ scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: repoOf(ctx).repository.id, ownerId: 0 }),
  },
  {
    prefix: '/orgs/{org}/hooks',
    tag: 'organization',
    operationPrefix: 'org',
    pathParameters: [stringPath('org', 'name of the organization')],
    guard: { scope: 'organization', auth: 'required' },
    // Gitea's reqOrgOwnership: the organization's owners and site admins (403 otherwise).
    async owner(ctx) {
      const org = organizationOf(ctx);
      const doer = doerOf(ctx);
      const owns = doer.isAdmin || (await ctx.services.clients.orgs.getOrgPermissions({ viewer: ctx.viewer, username: doer.login, org: org.name })).isOwner;
      if (!owns) throw HttpError.forbidden('Must be an organization owner');
      return { scope: HookScope.HOOK_SCOPE_ORGANIZATION, repoId: 0, ownerId: org.id };
    },
  },
  {
    prefix: '/user/hooks',
    tag: 'user',
    operationPrefix: 'user',
    pathParameters: [],
    guard: { scope: 'user', auth: 'required', denyPublicOnly: true },
    owner: (ctx) => Promise.resolve({ scope: HookScope.HOOK_SCOPE_USER, repoId: 0, ownerId: doerOf(ctx).id }),
  },
  {
    prefix: '/admin/hooks',
    tag: 'admin',
    operationPrefix: 'admin',
    pathParameters: [],
    guard: { scope: 'admin', auth: 'admin' },
    // System hooks deliver; default hooks only serve as templates and have no deliveries of their own.
    owner: () => Promise.resolve({ scope: HookScope.HOOK_SCOPE_SYSTEM, repoId: 0, ownerId: 0 }),
  },
];

function refuseWhenDisabled(ctx: ApiContext<undefined>): void {
  // Gitea's webhook API routes (routers/api/v1/api.go, `webhooksEnabled`).
  if (ctx.services.config.security.disableWebhooks) throw HttpError.forbidden('webhooks disabled by administrator');
}

const HOOK_ID = { type: 'integer', format: 'int64', description: 'id of the hook', name: 'id', in: 'path', required: true };

function listOperation(scope: ScopeRoutes): SwaggerOperation {
  return {
    produces: ['application/json'],
    tags: [scope.tag],
    summary: "List a hook's deliveries, newest first (Cairn)",
    operationId: `${scope.operationPrefix}ListHookDeliveries`,
    parameters: [
      ...scope.pathParameters,
      HOOK_ID,
      { type: 'integer', description: 'page number of results to return (1-based)', name: 'page', in: 'query' },
      { type: 'integer', description: 'page size of results', name: 'limit', in: 'query' },
    ],
    responses: {
      '200': { description: 'HookDeliveryList', schema: { type: 'array', items: { type: 'object' } } },
      '403': { $ref: '#/responses/forbidden' },
      '404': { $ref: '#/responses/notFound' },
    },
  };
}

function redeliverOperation(scope: ScopeRoutes): SwaggerOperation {
  return {
    produces: ['application/json'],
    tags: [scope.tag],
    summary: 'Deliver a delivery again, as a new delivery (Cairn)',
    operationId: `${scope.operationPrefix}RedeliverHookDelivery`,
    parameters: [...scope.pathParameters, HOOK_ID, { type: 'string', description: 'uuid of the delivery (X-Gitea-Delivery)', name: 'uuid', in: 'path', required: true }],
    responses: {
      '202': { description: 'HookDelivery', schema: { type: 'object' } },
      '403': { $ref: '#/responses/forbidden' },
      '404': { $ref: '#/responses/notFound' },
    },
  };
}

export function registerHookDeliveryRoutes(api: ApiRegistry): void {
  for (const scope of SCOPES) {
    api.route({
      ...scope.guard,
      method: 'get',
      path: `${scope.prefix}/{id}/deliveries`,
      operationId: `${scope.operationPrefix}ListHookDeliveries`,
      operation: listOperation(scope),
      handler: async (ctx) => {
        refuseWhenDisabled(ctx);
        const owner = await scope.owner(ctx);
        const { page, limit } = ctx.listOptions();
        const { deliveries, total } = await ctx.services.clients.hookDeliveries.listHookDeliveries({ owner, hookId: pathInt64(ctx.params.id), page, limit });
        ctx.setTotalCount(total);
        ctx.setLinkHeader(total, limit);
        return json(200, deliveries.map(toApiHookDelivery));
      },
    });

    api.route({
      ...scope.guard,
      method: 'post',
      path: `${scope.prefix}/{id}/deliveries/{uuid}/attempts`,
      operationId: `${scope.operationPrefix}RedeliverHookDelivery`,
      operation: redeliverOperation(scope),
      handler: async (ctx) => {
        refuseWhenDisabled(ctx);
        const owner = await scope.owner(ctx);
        const { delivery } = await ctx.services.clients.hookDeliveries.redeliverHookDelivery({ owner, hookId: pathInt64(ctx.params.id), uuid: ctx.params.uuid ?? '' });
        if (delivery === undefined) throw new Error('RedeliverHookDelivery answered without the delivery');
        return json(202, toApiHookDelivery(delivery));
      },
    });
  }
}
