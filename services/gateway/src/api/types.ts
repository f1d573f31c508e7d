/**
 * A route of the REST API as the gateway registers it: where it is, what it needs from the caller (in
 * Gitea's terms), what body it reads, how its calls' errors become HTTP, and the handler. The same record
 * generates the API description, so the description is exactly what is served.
 */
import type { CairnConfig } from '@cairn/config';
import type { CairnErrorMapping, GoStruct, GoValues, ListOptions, ScopeCategory } from '@cairn/http';
import type { Logger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Caller } from '../auth/caller';
import type { TokenCache } from '../auth/token-cache';
import type { GatewayClients } from '../clients';
import type { HttpMethod, SwaggerOperation } from '../swagger/document';

/**
 * What the caller must be, checked in this order after the token-scope check:
 * - `optional`: anyone, anonymous included;
 * - `required`: signed in (Gitea's `reqToken`: 401 `token is required`);
 * - `admin`: signed in and a site administrator (`reqSiteAdmin`: 403);
 * - `basic`: signed in through an `Authorization: Basic` header (`reqBasicOrRevProxyAuth`: 401 `auth
 *   required`), checked after the context user and `selfOrAdmin`, as Gitea orders them.
 */
export type AuthRequirement = 'optional' | 'required' | 'basic' | 'admin';

/**
 * Resolving the `{username}` path parameter to the context user (Gitea's `UserAssignmentAPI`), 404 when
 * there is none. `visible` also hides users the caller may not see (private: only self and admins; limited:
 * signed-in users), with the same 404.
 */
export type ContextUserRule = 'visible' | 'any';

export interface GatewayServices {
  config: CairnConfig;
  logger: Logger;
  clients: GatewayClients;
  tokenCache: TokenCache;
}

export interface ApiContext<B> {
  readonly services: GatewayServices;
  readonly caller: Caller;
  /** The signed-in user; always set on `required`, `basic` and `admin` routes. */
  readonly doer: User | undefined;
  /** The `{username}` user; always set on routes with a `contextUser` rule. */
  readonly contextUser: User | undefined;
  readonly params: Readonly<Record<string, string>>;
  readonly query: GoValues;
  readonly body: B;
  /** `page` and `limit` of this request, corrected as Gitea corrects them. */
  listOptions(): ListOptions;
  /** `Link` for a list of `total` items served `pageSize` at a time (nothing when it is one page). */
  setLinkHeader(total: number, pageSize: number): void;
  /** `X-Total-Count`. */
  setTotalCount(total: number): void;
}

export interface ApiReply {
  status: number;
  /** JSON body; none for e.g. 204. */
  body?: unknown;
}

export interface RouteSpec<B = undefined> {
  method: HttpMethod;
  /** Below /api/v1, Swagger-style: `/users/{username}/tokens/{token}`. */
  path: string;
  /** Gitea's operationId for this path and method (checked), or the route's own. */
  operationId: string;
  /** Token-scope category (`tokenRequiresScopes`); none for routes any token may call. */
  scope?: ScopeCategory;
  auth: AuthRequirement;
  contextUser?: ContextUserRule;
  /** `[service.explore] REQUIRE_SIGNIN_VIEW` (or `[service] REQUIRE_SIGNIN_VIEW`) applies (`reqExploreSignIn`). */
  exploreSignIn?: boolean;
  /** Only the context user or a site admin (`reqSelfOrAdmin`, 403). */
  selfOrAdmin?: boolean;
  /** The JSON body, bound as Gitea binds it (422 on failure). */
  body?: GoStruct<B>;
  /** How the errors of this route's calls become HTTP, over the shared table. */
  errors?: CairnErrorMapping;
  /** The operation object, for a route Gitea's description does not have. */
  operation?: SwaggerOperation;
  handler(ctx: ApiContext<B>): Promise<ApiReply>;
}

/** A route as stored: the spec plus the operation it is described with. */
export interface RegisteredRoute extends RouteSpec<unknown> {
  operation: SwaggerOperation;
}

export function json(status: number, body: unknown): ApiReply {
  return { status, body };
}

export function noContent(): ApiReply {
  return { status: 204 };
}

/** The doer of a route whose `auth` guarantees one. */
export function doerOf<B>(ctx: ApiContext<B>): User {
  if (ctx.doer === undefined) throw new Error('route reached without a signed-in user: its auth requirement is wrong');
  return ctx.doer;
}

/** The context user of a route with a `contextUser` rule. */
export function contextUserOf<B>(ctx: ApiContext<B>): User {
  if (ctx.contextUser === undefined) throw new Error('route reached without a context user: it needs a contextUser rule');
  return ctx.contextUser;
}
