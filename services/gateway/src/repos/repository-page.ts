/** A page of repositories from repos, answered as Gitea's list handlers answer it. */
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type ApiRepository, toApiRepositories } from '@cairn/gitea-json';
import type { ApiContext } from '../api/types';

export interface RepositoriesAnswer {
  repositories: RepositoryWithPermission[];
  total: number;
}

/** The page's repositories as Gitea's JSON, with Link and X-Total-Count set for `limit` a page. */
export async function repositoryPage<B>(ctx: ApiContext<B>, limit: number, answer: RepositoriesAnswer): Promise<ApiRepository[]> {
  const repositories = await toApiRepositories(ctx.services, ctx.viewer, answer.repositories);
  ctx.setLinkHeader(answer.total, limit);
  ctx.setTotalCount(answer.total);
  return repositories;
}
