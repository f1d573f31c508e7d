/**
 * The RepoScope every issues-service call carries: who asks (as authenticated here) and the `{owner}/{repo}`
 * repository with their permission, as repos decided it once for this request. The issues service makes its own
 * decisions from it.
 */
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type ApiContext, repoOf } from '../api/types';

export function repoScopeOf<B>(ctx: ApiContext<B>): RepoScope {
  const { repository, permission } = repoOf(ctx);
  return { viewer: ctx.viewer, repository: { repository, permission } };
}
