/**
 * A route of the REST API as the gateway registers it: where it is, what it needs from the caller (in
 * Gitea's terms), what body it reads, how its calls' errors become HTTP, and the handler. The same record
 * generates the API description, so the description is exactly what is served.
 */
import type { IncomingMessage } from 'node:http';
import type { CairnConfig } from '@cairn/config';
import type { CairnErrorMapping, GoStruct, GoValues, ListOptions, ScopeCategory } from '@cairn/http';
import type { Logger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Permission, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ObjectStore } from '@cairn/storage';
import type { RepoAccessMode } from '@cairn/gitea-json';
import type { Caller } from '../auth/caller';
import type { TokenCache } from '../auth/token-cache';
import type { PublicUserCache } from '../cache/public-users';
import type { GatewayClients } from '../clients';
import type { GitRepoCache } from '../git/repo-cache';
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

/** The account type of an organization (accounts' `User.type`, repos' `Repository.owner_type`); 0 is an individual. */
export const ORGANIZATION_TYPE = 1;

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

/**
 * What a route under `/repos/{owner}/{repo}` needs of the caller in that repository (Gitea's `repoAssignment`
 * with `reqRepoReader`/`reqRepoWriter`/`reqAdmin`/`reqOwner` and `mustNotBeArchived`): the repository is
 * loaded once (301 from a former name, 404 when the caller may not read it or the unit), then the mode is
 * checked (403) and, with `archived: 'refuse'`, an archived repository answers 423.
 */
export interface RepoRequirement {
  /** The unit the route serves (e.g. `repo.code`): not enabled or not readable is 404, and `mode` applies to it. */
  unit?: string;
  mode: RepoAccessMode;
  archived?: 'refuse';
  /**
   * `'anonymous'`: an anonymous caller's repository may come from the gateway's short memory of repos' answers
   * (git/repo-cache.ts, at most 2 s old, forgotten on any repository, collaborator, organization, team or user
   * event). Only for routes whose answer uses nothing of the repository that changes without such an event (its
   * ids, names, units, visibility and archived flag do not; counters such as open issues or stars do).
   */
  reuse?: 'anonymous';
}

/** The `{owner}/{repo}` repository and what the caller may do in it. */
export interface RepoContext {
  repository: Repository;
  permission: Permission;
}

export interface GatewayServices {
  config: CairnConfig;
  logger: Logger;
  clients: GatewayClients;
  tokenCache: TokenCache;
  /** Users as anonymous callers see them (cache/public-users.ts); only while events keep it honest. */
  publicUsers?: PublicUserCache;
  /** Repositories as anonymous callers see them, for routes with `reuse: 'anonymous'`; only while events keep it honest. */
  anonymousRepos?: GitRepoCache;
  /** Attachments' bytes (`[attachment]` storage), opened once at start-up. */
  objects: ObjectStore;
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
  /** The `{owner}/{repo}` repository; always set on routes with a `repo` requirement. */
  readonly repo: RepoContext | undefined;
  readonly params: Readonly<Record<string, string>>;
  readonly query: GoValues;
  readonly body: B;
  /** The request's body, still unread, on routes with `streamBody` (undefined on others). */
  readonly upload: IncomingMessage | undefined;
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
  /** Headers of the answer besides those the body implies; `Access-Control-Expose-Headers` adds to the paging headers'. */
  headers?: Readonly<Record<string, string>>;
  /** Bytes streamed as they come instead of a JSON body (raw files, archives); `headers` say what they are. */
  stream?: AsyncIterable<Uint8Array>;
}

export interface RouteSpec<B = undefined> {
  method: HttpMethod;
  /** Below /api/v1, Swagger-style: `/users/{username}/tokens/{token}`. */
  path: string;
  /** Path parameters that may span several segments (Gitea's `*` routes: file paths, branch names with `/`). */
  pathWildcards?: readonly string[];
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
  /** The `{owner}/{repo}` repository and what the caller needs in it (api/repo-context.ts). */
  repo?: RepoRequirement;
  /** Only the context user or a site admin (`reqSelfOrAdmin`, 403). */
  selfOrAdmin?: boolean;
  /** Refused to tokens limited to public resources (403 `this endpoint is not available for public-only tokens`). */
  denyPublicOnly?: boolean;
  /** The JSON body, bound as Gitea binds it (422 on failure). */
  body?: GoStruct<B>;
  /**
   * The handler streams the request body itself (`ctx.upload`, e.g. an attachment): `[server] MAX_BODY_SIZE`, the
   * JSON bodies' limit, does not apply, and the route applies its own.
   */
  streamBody?: boolean;
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

/** The repository of a route with a `repo` requirement. */
export function repoOf<B>(ctx: ApiContext<B>): RepoContext {
  if (ctx.repo === undefined) throw new Error('route reached without a repository: it needs a repo requirement');
  return ctx.repo;
}
