/**
 * The RepoScope every issues-service call carries: who asks (as authenticated here) and the `{owner}/{repo}`
 * repository with their permission, as repos decided it once for this request. The issues service makes its own
 * decisions from it.
 */
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { accessAtLeast } from '@cairn/gitea-json';
import { type ApiContext, repoOf } from '../api/types';

export function repoScopeOf<B>(ctx: ApiContext<B>): RepoScope {
  const { repository, permission } = repoOf(ctx);
  return { viewer: ctx.viewer, repository: { repository, permission } };
}

/**
 * The caller may write the unit in this repository (Gitea's CanWrite(unit); repository admins and site admins —
 * whom repos gives `owner` — may write every enabled unit). The gateway needs it to decide what to ask for (e.g.
 * assignee lookups) and what to tell social; the issues service decides for itself with the same rule.
 */
export function canWriteUnit<B>(ctx: ApiContext<B>, unit: string): boolean {
  if (ctx.doer?.isAdmin === true) return true;
  const { repository, permission } = repoOf(ctx);
  if (!repository.units.some((enabled) => enabled.key === unit)) return false;
  return accessAtLeast(permission.units[unit], 'write') || accessAtLeast(permission.accessMode, 'admin');
}
