/**
 * What the git-facing repository routes (branches, tags, commits, contents, raw files, archives, statuses) share:
 * the `{owner}/{repo}` repository as git-storage addresses it and as Gitea's links name it, the doer as a git
 * signature and as a pusher, Gitea's boolean query flags, and answering one service failure with Gitea's words.
 */
import type { CairnConfig } from '@cairn/config';
import { type CairnErrorMapping, type GoValues, HttpError, goFormString } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { PushContext, Repository as GitRepository, Signature } from '@cairn/proto/cairn/git/v1/git_service';
import { type Code, isCairnError } from '@cairn/rpc';
import { type RepoLinks, UNIT_CODE, accessAtLeast, gitRepositoryOf, repoLinks } from '@cairn/gitea-json';
import { type ApiContext, type RepoContext, doerOf, repoOf } from '../../api/types';
import { pushContextOf } from '../../git/storage-ref';


/** Gitea's answer to a ref or contents call on a repository without any commit. */
export const EMPTY_REPOSITORY_MESSAGE = 'Git Repository is empty.';

/** Reading a revision of a repository without commits (git-storage's `empty_repository`) finds nothing: 404. */
export const READ_ERRORS: CairnErrorMapping = { reasons: { empty_repository: () => HttpError.notFound() } };

/** The route's repository with its git-storage address and Gitea's links. */
export interface GitRepoContext extends RepoContext {
  git: GitRepository;
  links: RepoLinks;
}

export function gitRepoOf<B>(ctx: ApiContext<B>): GitRepoContext {
  const repo = repoOf(ctx);
  return { ...repo, git: gitRepositoryOf(repo.repository), links: repoLinks(ctx.services.config.server.rootUrl, repo.repository) };
}

/** The signed-in doer moving refs in the route's repository. */
export function pushOf<B>(ctx: ApiContext<B>): PushContext {
  return pushContextOf(doerOf(ctx), repoOf(ctx).repository);
}

/** The caller may write code (a code writer or a repository admin), as Gitea's reqRepoWriter(code) asks. */
export function canWriteCode({ permission }: RepoContext): boolean {
  return accessAtLeast(permission.units[UNIT_CODE], 'write') || accessAtLeast(permission.accessMode, 'admin');
}

export function isRepoAdmin({ permission }: RepoContext): boolean {
  return accessAtLeast(permission.accessMode, 'admin');
}

/** Gitea's gitSafeName: no newline or angle bracket survives into a git signature. */
function gitSafeName(name: string): string {
  return name.replace(/[\n<>]/g, '').trim();
}

/**
 * The doer as git records them (Gitea's `User.NewGitSig`): their full name (else login), and the no-reply address
 * when they keep their e-mail private.
 */
export function doerSignature(doer: User, config: CairnConfig, when = new Date()): Signature {
  const email = doer.keepEmailPrivate ? `${doer.login.toLowerCase()}@${config.service.noReplyAddress}` : doer.email;
  return { name: gitSafeName(doer.fullName) || gitSafeName(doer.login), email, when, timezone: '+0000' };
}

/** Gitea's `ctx.FormString(name) == "" || ctx.FormBool(name)`: a flag that is on unless the query turns it off. */
export function flagOnByDefault(query: GoValues, name: string): boolean {
  const text = goFormString(query, name);
  return text === '' || ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text);
}

/** `inline; filename="a.md"`, or RFC 5987's `filename*` for a name that needs escaping (Gitea's httplib). */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {
  const escaped = encodeURIComponent(name);
  return escaped === name ? `${disposition}; filename="${name}"` : `${disposition}; filename*=UTF-8''${escaped}`;
}

/**
 * Awaits a service call, answering the listed failure codes with Gitea's own answers for this route; anything
 * else goes on to the route's error table.
 */
export async function answering<T>(call: Promise<T>, answers: Partial<Record<Code, (message: string) => HttpError>>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    const answer = isCairnError(error) ? answers[error.code] : undefined;
    if (answer !== undefined && isCairnError(error)) throw answer(error.message);
    throw error;
  }
}
