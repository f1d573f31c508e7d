/**
 * A route of the REST API as the gateway registers it: where it is, what it needs from the caller (in
 * Gitea's terms), what body it reads, how its calls' errors become HTTP, and the handler. The same record
 * generates the API description, so the description is exactly what is served.
 */
import type { CairnConfig } from '@cairn/config';
import type { CairnErrorMapping, GoStruct, GoValues, ListOptions, ScopeCategory } from '@cairn/http';
import type { Logger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
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
 * Loading the `{username}` path parameter's user as the context user (Gitea's `UserAssignmentAPI`): accounts
 * answers the user as the caller may see them, and 404 for a user that does not exist or that the caller may
 * not see (private: self, admins and organization mates; limited: signed-in users who are not restricted).
 */
export type ContextUserRule = 'visible';

/** What a `{username}` or `{org}` path parameter names, once resolved (api/account-name.ts). */
export interface NamedAccount {
  id: number;
  /** 0: an individual, 1: an organization. */
  type: number;
  /** The current name. */
  name: string;
  /** "public", "limited" or "private". */
  visibility: string;
}

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
  /** The signed-in user as accounts' calls name who asks; undefined for an anonymous caller. */
  readonly viewer: Actor | undefined;
  /** The `{username}` user; always set on routes with a `contextUser` rule. */
  readonly contextUser: User | undefined;
  /** The accounts the path's `{username}` and `{org}` parameters name (existing, visible to the caller), by parameter. */
  readonly accounts: Readonly<Record<string, NamedAccount>>;
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
  /** A redirect (3xx status) to this address, answered as Go's http.Redirect does. */
  location?: string;
}

export interface RouteSpec<B = undefined> {
  method: HttpMethod;
  /** Below /api/v1, Swagger-style: `/users/{username}/tokens/{token}`. */
  path: string;
  /** Gitea's operationId for this path and method (checked), or the route's own. */
  operationId: string;
  /**
   * Token-scope category (`tokenRequiresScopes`); none for routes any token may call. Several are checked one
   * after the other, as Gitea's nested groups do (e.g. `/users/{username}/repos`: user, then repository).
   */
  scope?: ScopeCategory | readonly ScopeCategory[];
  auth: AuthRequirement;
  contextUser?: ContextUserRule;
  /** `[service.explore] REQUIRE_SIGNIN_VIEW` (or `[service] REQUIRE_SIGNIN_VIEW`) applies (`reqExploreSignIn`). */
  exploreSignIn?: boolean;
  /** Only the context user or a site admin (`reqSelfOrAdmin`, 403). */
  selfOrAdmin?: boolean;
  /** Refused to tokens limited to public resources (403 `this endpoint is not available for public-only tokens`). */
  denyPublicOnly?: boolean;
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

export function redirect(status: number, location: string): ApiReply {
  return { status, location };
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
