/**
 * Who may fetch from and push to a repository over smart HTTP, in the order of Gitea's `httpBase`
 * (routers/web/repo/githttp.go): an archived repository takes no push; a public repository of a public owner
 * is fetched without credentials (unless `[service] REQUIRE_SIGNIN_VIEW`); everything else asks for
 * credentials (401 with `WWW-Authenticate`, so git prompts or sends them), then checks the token's scope, the
 * account, the code unit and the mirror flag. repos decided what the caller may do; this compares levels.
 *
 * Gitea lets a reader start a push and refuses it in its pre-receive hook ("User permission denied for
 * writing."); Cairn refuses it before the push starts, with the same words.
 */
import { grantsScope } from '@cairn/http';
import { UNIT_CODE, accessAtLeast } from '@cairn/gitea-json';
import type { Caller } from '../auth/caller';
import { isPublicOnly } from '../auth/caller';
import type { RepoContext } from '../api/types';

export type GitService = 'upload-pack' | 'receive-pack';


/** A refused request: its status, its plain-text body and whether to ask for credentials. */
export interface GitRefusal {
  status: number;
  body: string;
  askCredentials?: boolean;
}

export const HTTP_GIT_DISABLED: GitRefusal = { status: 403, body: 'Interacting with repositories by HTTP protocol is not allowed' };
export const CREDENTIALS_NEEDED: GitRefusal = { status: 401, body: 'Unauthorized\n', askCredentials: true };
export const REPOSITORY_NOT_FOUND: GitRefusal = { status: 404, body: 'Repository not found' };
export const ARCHIVED_PUSH: GitRefusal = {
  status: 403,
  body: 'This repo is archived. You can view files and clone it, but cannot push or open issues/pull-requests.',
};
export const TOKEN_FORBIDDEN: GitRefusal = { status: 403, body: 'Forbidden\n' };
export const ACCOUNT_DISABLED: GitRefusal = { status: 403, body: 'Your account is disabled.' };
export const PUSH_DENIED: GitRefusal = { status: 403, body: 'User permission denied for writing.' };
export const MIRROR_PUSH: GitRefusal = { status: 403, body: 'mirror repository is read-only' };

export interface GitAccessRequest {
  service: GitService;
  caller: Caller;
  /** The repository as the caller may see it; undefined when it does not exist or the caller may not read it. */
  repo: RepoContext | undefined;
  /** `[service] REQUIRE_SIGNIN_VIEW`. */
  requireSigninView: boolean;
}

/** Why the request is refused, or undefined when it may go ahead. */
export function gitAccessRefusal({ service, caller, repo, requireSigninView }: GitAccessRequest): GitRefusal | undefined {
  const push = service === 'receive-pack';
  const user = caller.user;
  // Hidden and missing look the same; an anonymous caller is asked who they are first.
  if (repo === undefined) return user === undefined ? CREDENTIALS_NEEDED : REPOSITORY_NOT_FOUND;
  const { repository } = repo;
  if (push && repository.archived) return ARCHIVED_PUSH;

  const publicFetch = !push && !repository.private && repository.ownerVisibility === 'public';
  if (publicFetch && !requireSigninView) return canRead(repo) ? undefined : REPOSITORY_NOT_FOUND;

  if (user === undefined) return CREDENTIALS_NEEDED;
  if (caller.tokenScopes !== undefined) {
    if (isPublicOnly(caller) && repository.private) return TOKEN_FORBIDDEN;
    if (!grantsScope(caller.tokenScopes, push ? 'write:repository' : 'read:repository')) return TOKEN_FORBIDDEN;
  }
  if (!user.active || user.prohibitLogin) return ACCOUNT_DISABLED;
  if (!canRead(repo)) return REPOSITORY_NOT_FOUND;
  if (push && !codeAccessAtLeast(repo, 'write')) return PUSH_DENIED;
  if (push && repository.mirror) return MIRROR_PUSH;
  return undefined;
}

/** The caller's level on the code unit is at least `mode` (repository admins have every unit). */
function codeAccessAtLeast({ permission }: RepoContext, mode: 'read' | 'write'): boolean {
  return accessAtLeast(permission.units[UNIT_CODE], mode) || accessAtLeast(permission.accessMode, 'admin');
}

/** The code unit is enabled and the caller may read it. */
function canRead(repo: RepoContext): boolean {
  return repo.repository.units.some((unit) => unit.key === UNIT_CODE) && codeAccessAtLeast(repo, 'read');
}
