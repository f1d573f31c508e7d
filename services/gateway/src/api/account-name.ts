/**
 * Path parameters that name a user or an organization (`{username}`, `{org}`), resolved once for every route
 * that has one, as Gitea's `UserAssignmentAPI`, org assignment and `GetUserByPathParam` do: the current name
 * of an account the caller may see goes on; an old name of a renamed account is answered 307 with the same
 * path and query under the new name; anything else is 404. Accounts decides what the caller may see.
 */
import { HttpError } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code, isCairnError } from '@cairn/rpc';
import type { GatewayRequest } from '../http/exchange';
import type { GatewayServices, NamedAccount } from './types';

/** The parameters that hold account names, and Gitea's 404 for each. */
export const ACCOUNT_NAME_PARAMS: Readonly<Record<string, (name: string) => HttpError>> = {
  // The redirect lookup's error (UserAssignmentAPI answers with it).
  username: (name) => new HttpError(404, `user redirect does not exist [name: ${name}]`),
  // Org assignment: APIErrorNotFound("GetOrgByName", err).
  org: (name) => HttpError.notFound('GetOrgByName', [`user redirect does not exist [name: ${name}]`]),
};

/** The account-name parameters of a route path, in path order. */
export function accountNameParams(routePath: string): string[] {
  return [...routePath.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).filter((param) => param in ACCOUNT_NAME_PARAMS);
}

export function accountNotFound(param: string, name: string): HttpError {
  return ACCOUNT_NAME_PARAMS[param](name);
}

/** Where the account went, or what the route loaded for it. */
export type NameResolution<T> = { kind: 'found'; value: T } | { kind: 'renamed'; name: string };

function isNotFound(error: unknown): boolean {
  return isCairnError(error) && error.code === Code.NOT_FOUND;
}

/** ResolveName alone: the account the name stands for, a rename, or the parameter's 404. */
export async function resolveAccount(
  services: GatewayServices,
  viewer: Actor | undefined,
  param: string,
  name: string,
): Promise<NameResolution<NamedAccount>> {
  try {
    const resolved = await services.clients.users.resolveName({ name, viewer });
    if (resolved.redirect) return { kind: 'renamed', name: resolved.name };
    return { kind: 'found', value: { id: resolved.id, type: resolved.type, name: resolved.name, visibility: resolved.visibility } };
  } catch (error) {
    if (isNotFound(error)) throw accountNotFound(param, name);
    throw error;
  }
}

/**
 * What `load` (a lookup by current name answering NOT_FOUND for a missing or hidden account, e.g. GetUser) finds
 * for `name`: the hit costs that one call; only a miss asks ResolveName whether the name is an old one.
 */
export async function loadAccount<T>(
  services: GatewayServices,
  viewer: Actor | undefined,
  param: string,
  name: string,
  load: () => Promise<T>,
): Promise<NameResolution<T>> {
  try {
    return { kind: 'found', value: await load() };
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const resolved = await resolveAccount(services, viewer, param, name);
  // A current name `load` did not find is not an account this route serves.
  if (resolved.kind === 'found') throw accountNotFound(param, name);
  return resolved;
}

/**
 * The request's URL with the segments of the `renames` parameters replaced by their new names (same query
 * string), below ROOT_URL's path, as Gitea's RedirectToUser and RedirectToRepo build it.
 */
export function renamedLocation(req: GatewayRequest, routePath: string, renames: Readonly<Record<string, string>>, rootUrl: string): string {
  const routeSegments = routePath.split('/');
  const segments = req.path.split('/');
  for (const [param, newName] of Object.entries(renames)) segments[routeSegments.indexOf(`{${param}}`)] = encodeURIComponent(newName);
  const at = req.originalUrl.indexOf('?');
  const query = at < 0 ? '' : req.originalUrl.slice(at);
  return `${new URL(rootUrl).pathname.replace(/\/$/, '')}${req.baseUrl}${segments.join('/')}${query}`;
}
