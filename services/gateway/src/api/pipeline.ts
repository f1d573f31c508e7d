/**
 * One API request through its route, in Gitea's middleware order: token scopes (and public-only tokens on
 * routes closed to them) → signed in / site admin → account names in the path (renamed: 307; unknown or
 * hidden: 404) and the context user → public-only token on a non-public user → explore sign-in → self or
 * admin → Basic auth → the `{owner}/{repo}` repository (renamed: 301; hidden: 404; too little access: 403;
 * archived: 423) → body → handler. Every failure on the way becomes Gitea's error answer; service errors
 * are mapped by the route's table.
 */
import {
  EXPOSE_HEADERS_HEADER,
  HttpError,
  LINK_HEADER,
  TOTAL_COUNT_HEADER,
  appendExposeHeaders,
  checkTokenScopes,
  httpErrorFromCairn,
  linkHeader,
  listOptions,
  type CairnErrorMapping,
  type GoValues,
  type ListOptions,
  type ScopeCategory,
  parseGoQuery,
} from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { isCairnError } from '@cairn/rpc';
import { isPublicOnly, viewerOf, type Caller } from '../auth/caller';
import { readJsonBody } from '../http/body';
import type { GatewayRequest, GatewayResponse } from '../http/exchange';
import { sendJson, sendRedirect } from '../http/respond';
import { sendStream } from '../http/stream';
import { GitRepoCache } from '../git/repo-cache';
import { accountNameParams, loadAccount, renamedLocation, resolveAccount } from './account-name';
import { REPO_ERROR_REASONS, REPO_NAME_PARAM, REPO_OWNER_PARAM, checkRepoRequirement, lookUpRepo, repoNameOf } from './repo-context';
import type { ApiContext, GatewayServices, NamedAccount, RegisteredRoute, RepoContext } from './types';

export const TOKEN_REQUIRED_MESSAGE = 'token is required';
export const SITE_ADMIN_REQUIRED_MESSAGE = 'user should be the site admin';
export const SELF_OR_ADMIN_MESSAGE = 'doer should be the site admin or be same as the contextUser';
export const BASIC_AUTH_REQUIRED_MESSAGE = 'auth required';
export const EXPLORE_SIGN_IN_MESSAGE = 'you must be signed in to search for users';
export const PUBLIC_ONLY_USER_MESSAGE = 'token scope is limited to public users';
export const PUBLIC_ONLY_ORG_MESSAGE = 'token scope is limited to public orgs';
export const PUBLIC_ONLY_ENDPOINT_MESSAGE = 'this endpoint is not available for public-only tokens';

/** A route with what its requests need worked out once, when the router is built. */
export interface PreparedRoute {
  route: RegisteredRoute;
  /** The token-scope categories checked, in order. */
  scopes: readonly ScopeCategory[];
  /** The path parameters naming accounts, in path order. */
  accountParams: readonly string[];
  /** How the route's call errors become HTTP: its own table, over the repository routes' shared reasons. */
  errors: CairnErrorMapping | undefined;
}

export function prepareRoute(route: RegisteredRoute): PreparedRoute {
  if (route.repo !== undefined && !(route.path.includes(`{${REPO_OWNER_PARAM}}`) && route.path.includes(`{${REPO_NAME_PARAM}}`))) {
    throw new Error(`${route.method.toUpperCase()} ${route.path}: a repo requirement needs {${REPO_OWNER_PARAM}} and {${REPO_NAME_PARAM}} in the path`);
  }
  const scopes = route.scope === undefined ? [] : typeof route.scope === 'string' ? [route.scope] : route.scope;
  const errors = route.repo === undefined ? route.errors : { ...route.errors, reasons: { ...REPO_ERROR_REASONS, ...route.errors?.reasons } };
  return { route, scopes, accountParams: accountNameParams(route.path), errors };
}

/** The accounts the path names, the context user, or the rename to answer with. */
interface PathAccounts {
  accounts: Record<string, NamedAccount>;
  contextUser: User | undefined;
  renamed?: { param: string; name: string };
}

/**
 * Resolves every `{username}`/`{org}` parameter in path order. The context user comes from GetUser as the
 * caller sees it — their own name needs no call: the signed-in user is who they are.
 */
async function resolvePathAccounts(
  { route, accountParams }: PreparedRoute,
  params: Record<string, string>,
  doer: User | undefined,
  viewer: Actor | undefined,
  services: GatewayServices,
): Promise<PathAccounts> {
  const found: PathAccounts = { accounts: {}, contextUser: undefined };
  for (const param of accountParams) {
    const name = params[param] ?? '';
    if (param === 'username' && route.contextUser !== undefined) {
      const resolution =
        doer !== undefined && doer.login.toLowerCase() === name.toLowerCase()
          ? { kind: 'found' as const, value: doer }
          : await loadAccount(services, viewer, param, name, async () => {
              const { user } = await services.clients.users.getUser({ username: name, viewer });
              if (user === undefined) throw new Error('GetUser answered without a user');
              return user;
            });
      if (resolution.kind === 'renamed') return { ...found, renamed: { param, name: resolution.name } };
      const user = resolution.value;
      found.contextUser = user;
      found.accounts[param] = { id: user.id, type: user.type, name: user.login, visibility: user.visibility };
    } else {
      const resolution = await resolveAccount(services, viewer, param, name);
      if (resolution.kind === 'renamed') return { ...found, renamed: { param, name: resolution.name } };
      found.accounts[param] = resolution.value;
    }
  }
  return found;
}

export function rawQueryOf(req: GatewayRequest): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}

/** A path without account parameters names none (shared: handlers only read it). */
const NO_PATH_ACCOUNTS: PathAccounts = Object.freeze({ accounts: Object.freeze({}), contextUser: undefined });

/** The handler's view of one request; its methods are on the prototype, so a request costs no closures. */
class RouteContext implements ApiContext<unknown> {
  constructor(
    readonly services: GatewayServices,
    readonly caller: Caller,
    readonly doer: User | undefined,
    readonly viewer: Actor | undefined,
    readonly contextUser: User | undefined,
    readonly accounts: Readonly<Record<string, NamedAccount>>,
    readonly repo: RepoContext | undefined,
    readonly params: Readonly<Record<string, string>>,
    readonly query: GoValues,
    readonly body: unknown,
    readonly upload: GatewayRequest | undefined,
    private readonly req: GatewayRequest,
    private readonly res: GatewayResponse,
    private readonly rawQuery: string,
  ) {}

  listOptions(): ListOptions {
    return listOptions(this.query, this.services.config.api);
  }

  setLinkHeader(total: number, pageSize: number): void {
    const path = this.req.originalUrl.split('?')[0];
    const value = linkHeader({ rootUrl: this.services.config.server.rootUrl, path, rawQuery: this.rawQuery, total, pageSize });
    if (value === undefined) return;
    this.res.setHeader(LINK_HEADER, value);
    this.exposeHeader(LINK_HEADER);
  }

  setTotalCount(total: number): void {
    this.res.setHeader(TOTAL_COUNT_HEADER, String(total));
    this.exposeHeader(TOTAL_COUNT_HEADER);
  }

  private exposeHeader(name: string): void {
    this.res.setHeader(EXPOSE_HEADERS_HEADER, appendExposeHeaders(this.res.getHeader(EXPOSE_HEADERS_HEADER)?.toString(), name));
  }
}

/**
 * Runs one request through its route, as the caller the API's request-wide steps left on `req`. Errors of
 * the route's calls become HTTP through the route's own table.
 */
export async function runRoute(prepared: PreparedRoute, services: GatewayServices, req: GatewayRequest, res: GatewayResponse): Promise<void> {
  try {
    const { route, scopes } = prepared;
    const { config } = services;
    const caller = req.caller;
    const doer = caller.user;
    const viewer = viewerOf(doer);

    if (caller.tokenScopes !== undefined) {
      for (const category of scopes) {
        const check = checkTokenScopes(caller.tokenScopes, req.method ?? '', [category]);
        if (!check.allowed) throw HttpError.forbidden(check.message);
      }
    }
    if (route.denyPublicOnly && isPublicOnly(caller)) throw HttpError.forbidden(PUBLIC_ONLY_ENDPOINT_MESSAGE);
    if ((route.auth === 'required' || route.auth === 'admin') && doer === undefined) {
      throw HttpError.unauthorized(TOKEN_REQUIRED_MESSAGE);
    }
    if (route.auth === 'admin' && !doer?.isAdmin) throw HttpError.forbidden(SITE_ADMIN_REQUIRED_MESSAGE);

    const params = req.params;
    const { accounts, contextUser, renamed } =
      prepared.accountParams.length === 0 ? NO_PATH_ACCOUNTS : await resolvePathAccounts(prepared, params, doer, viewer, services);
    if (renamed !== undefined) {
      sendRedirect(req, res, 307, renamedLocation(req, route.path, { [renamed.param]: renamed.name }, config.server.rootUrl));
      return;
    }

    // A public-only token reaches public users only (Gitea's checkTokenPublicOnly on user-scoped routes).
    if (contextUser !== undefined && scopes.includes('user') && isPublicOnly(caller) && contextUser.visibility !== 'public') {
      throw HttpError.forbidden(PUBLIC_ONLY_USER_MESSAGE);
    }
    // …and public organizations only on organization routes.
    const org = accounts.org;
    if (org !== undefined && scopes.includes('organization') && isPublicOnly(caller) && org.visibility !== 'public') {
      throw HttpError.forbidden(PUBLIC_ONLY_ORG_MESSAGE);
    }
    if (route.exploreSignIn && doer === undefined && (config.service.requireSigninView || config.explore.requireSigninView)) {
      throw HttpError.unauthorized(EXPLORE_SIGN_IN_MESSAGE);
    }
    if (route.selfOrAdmin && !doer?.isAdmin && (doer === undefined || doer.id !== contextUser?.id)) {
      throw HttpError.forbidden(SELF_OR_ADMIN_MESSAGE);
    }
    if (route.auth === 'basic' && (doer === undefined || !caller.isBasicAuth)) {
      throw HttpError.unauthorized(BASIC_AUTH_REQUIRED_MESSAGE);
    }

    let repo: RepoContext | undefined;
    if (route.repo !== undefined) {
      const requested = params[REPO_NAME_PARAM] ?? '';
      const repoOwner = params[REPO_OWNER_PARAM] ?? '';
      const repoName = repoNameOf(requested);
      const load = () => lookUpRepo(services, viewer, repoOwner, repoName);
      const remembered = route.repo.reuse === 'anonymous' && viewer === undefined ? services.anonymousRepos : undefined;
      const found = remembered === undefined ? await load() : await remembered.lookUp(GitRepoCache.key(undefined, repoOwner, repoName), load);
      if (found === undefined) throw HttpError.notFound(); // load answers or throws: never reached
      if (found.kind === 'renamed') {
        // A git client asked for `<name>.git`: it follows the redirect to the new name the same way.
        const name = requested === repoNameOf(requested) ? found.name : `${found.name}${requested.slice(-4)}`;
        const location = renamedLocation(req, route.path, { [REPO_OWNER_PARAM]: found.owner, [REPO_NAME_PARAM]: name }, config.server.rootUrl);
        sendRedirect(req, res, 301, location);
        return;
      }
      checkRepoRequirement(route.repo, found.value, isPublicOnly(caller));
      repo = found.value;
    }

    let body: unknown;
    if (route.body !== undefined) {
      const bound = route.body.bind(await readJsonBody(req, config.server.maxBodySize));
      if (!bound.ok) throw HttpError.unprocessable(bound.message);
      body = bound.value;
    }

    const rawQuery = rawQueryOf(req);
    const query = req.query ?? parseGoQuery(rawQuery);
    const reply = await route.handler(new RouteContext(services, caller, doer, viewer, contextUser, accounts, repo, params, query, body, route.streamBody ? req : undefined, req, res, rawQuery));
    for (const [name, value] of Object.entries(reply.headers ?? {})) {
      // Exposed header names add to those the paging headers exposed.
      res.setHeader(name, name === EXPOSE_HEADERS_HEADER ? appendExposeHeaders(res.getHeader(name)?.toString(), value) : value);
    }
    if (reply.location !== undefined) sendRedirect(req, res, reply.status, reply.location);
    else if (reply.stream !== undefined) await sendStream(res, reply.status, reply.stream, services.logger);
    else if (reply.body === undefined) {
      res.statusCode = reply.status;
      res.end();
    } else sendJson(res, reply.status, reply.body);
  } catch (error) {
    throw isCairnError(error) ? httpErrorFromCairn(error, prepared.errors) : error;
  }
}
