/**
 * The `{owner}/{repo}` repository of a route, loaded once per request as Gitea's `repoAssignment` does, and the
 * route's requirement checked against what repos says the caller may do there: a former name answers 301 to
 * the current one (path rewritten, query kept); a repository or unit the caller may not read is 404; too
 * little access is 403 with the message of Gitea's guard for that level; a write to an archived repository
 * is 423. repos makes every access decision; this only compares levels.
 */
import { HttpError } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, isCairnError } from '@cairn/rpc';
import { type RepoAccessMode, accessAtLeast } from '@cairn/gitea-json';
import type { GatewayServices, RepoContext, RepoRequirement } from './types';

/** The path parameters that name the repository. */
export const REPO_OWNER_PARAM = 'owner';
export const REPO_NAME_PARAM = 'repo';

export const REPO_WRITE_MESSAGE = 'user should have a permission to write to a repo';
export const REPO_ADMIN_MESSAGE = 'user should be an owner or a collaborator with admin write of a repository';
export const REPO_OWNER_MESSAGE = 'user should be the owner of the repo';
export const PUBLIC_ONLY_REPO_MESSAGE = 'token scope is limited to public repos';

/**
 * A public-only token reaches only public repositories of public owners, the rule its lists follow too (repos'
 * isPublicObject); 403 otherwise. Gitea's checkTokenPublicOnly (routers/api/v1/api.go) looks at the repository's own
 * flag only; Cairn also keeps such a token out of a private or limited owner's public repositories.
 */
export function assertPublicOnlyMayReach(repository: Repository, publicOnly: boolean): void {
  if (publicOnly && (repository.private || repository.ownerVisibility !== 'public')) throw HttpError.forbidden(PUBLIC_ONLY_REPO_MESSAGE);
}

/**
 * Reasons every repository route answers alike: repos refusing a write because the repository is archived is 423
 * (`<owner>/<repo> is archived`), and a repository that vanished between the lookup and the call is Gitea's 404.
 */
export const REPO_ERROR_REASONS: Readonly<Record<string, number | (() => HttpError)>> = {
  repo_archived: 423,
  repo_not_found: () => HttpError.notFound(),
};

const MODE_MESSAGES: Readonly<Record<Exclude<RepoAccessMode, 'read'>, string>> = {
  write: REPO_WRITE_MESSAGE,
  admin: REPO_ADMIN_MESSAGE,
  owner: REPO_OWNER_MESSAGE,
};

const GIT_SUFFIX = '.git';

/** `{repo}` as git clients write it may end in `.git`. */
export function repoNameOf(param: string): string {
  return param.toLowerCase().endsWith(GIT_SUFFIX) ? param.slice(0, -GIT_SUFFIX.length) : param;
}

/** The repository, or where it went. */
export type RepoLookup = { kind: 'found'; value: RepoContext } | { kind: 'renamed'; owner: string; name: string };

/** One GetRepository as the viewer; NOT_FOUND (missing or hidden) is Gitea's bare 404. */
export async function lookUpRepo(services: GatewayServices, viewer: Actor | undefined, owner: string, name: string): Promise<RepoLookup> {
  try {
    const { repository, redirect } = await services.clients.repos.getRepository({ viewer, id: 0, owner, name });
    if (redirect !== undefined) return { kind: 'renamed', owner: redirect.owner, name: redirect.name };
    if (repository?.repository === undefined || repository.permission === undefined) {
      throw new Error('GetRepository answered without a repository');
    }
    return { kind: 'found', value: { repository: repository.repository, permission: repository.permission } };
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) throw HttpError.notFound();
    throw error;
  }
}

/**
 * The route's requirement against the loaded repository, in Gitea's order: unit readable (404), public-only
 * token on a private repository (403), access level (403), archived (423).
 */
export function checkRepoRequirement(requirement: RepoRequirement, { repository, permission }: RepoContext, publicOnly: boolean): void {
  const { unit, mode } = requirement;
  if (unit !== undefined) {
    const enabled = repository.units.some((u) => u.key === unit);
    if (!enabled || !accessAtLeast(permission.units[unit], 'read')) throw HttpError.notFound();
  }
  assertPublicOnlyMayReach(repository, publicOnly);
  if (mode !== 'read') {
    // Gitea's reqRepoWriter takes write on the route's unit, or repository admin; reqAdmin and reqOwner look
    // at the overall level.
    const allowed =
      mode === 'write' && unit !== undefined
        ? accessAtLeast(permission.units[unit], 'write') || accessAtLeast(permission.accessMode, 'admin')
        : accessAtLeast(permission.accessMode, mode);
    if (!allowed) throw HttpError.forbidden(MODE_MESSAGES[mode]);
  }
  if (requirement.archived === 'refuse' && repository.archived) {
    throw new HttpError(423, `${repository.ownerName}/${repository.name} is archived`);
  }
}
