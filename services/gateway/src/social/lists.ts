/**
 * The lists social answers as ids, made into Gitea's objects with one batch call each: a page of users
 * (stargazers, watchers) hydrated by accounts, and a page of repositories (starred, watched) that repos filters
 * by what the viewer may read, pages and counts. Both set `Link` and `X-Total-Count`.
 */
import { SearchRepositoriesRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import { json, type ApiContext, type ApiReply } from '../api/types';
import { isPublicOnly } from '../auth/caller';
import { toApiUsersWithCounts } from './user-counts';
import { repositoryPage } from '../repos/repository-page';

/** One page of users given by id, in that order; `total` counts every page. */
export async function userListReply<B>(ctx: ApiContext<B>, page: { userIds: readonly number[]; total: number }): Promise<ApiReply> {
  const { userIds, total } = page;
  const { users } =
    userIds.length === 0 ? { users: [] } : await ctx.services.clients.users.batchGetUsers({ ids: [...userIds], viewer: ctx.viewer });
  const byId = new Map(users.map((user) => [user.id, user]));
  // A user deleted since (their stars and watches are being forgotten) is left out.
  const listed = await toApiUsersWithCounts(ctx, userIds.flatMap((id) => byId.get(id) ?? []));
  ctx.setLinkHeader(total, ctx.listOptions().limit);
  ctx.setTotalCount(total);
  return json(200, listed);
}

export interface RepositoryListOptions {
  /** Every repository a user starred or watches, as social answers them. */
  repoIds: readonly number[];
  /**
   * Private repositories may be listed (the viewer's own list, as Gitea's `IncludePrivate`); others' lists show
   * public repositories only, and a public-only token never sees private ones.
   */
  includePrivate: boolean;
}

/** The page of `repoIds` the viewer may read, as Gitea's `Repository` objects; `total` counts those readable. */
export async function repositoryListReply<B>(ctx: ApiContext<B>, { repoIds, includePrivate }: RepositoryListOptions): Promise<ApiReply> {
  const { page, limit } = ctx.listOptions();
  const privateToo = includePrivate && !isPublicOnly(ctx.caller);
  const answer =
    repoIds.length === 0
      ? { repositories: [], total: 0 }
      : await ctx.services.clients.repos.searchRepositories(
          SearchRepositoriesRequest.fromPartial({
            viewer: ctx.viewer,
            page: { page, limit },
            onlyIds: [...repoIds],
            restrictToIds: true,
            isPrivate: privateToo ? undefined : false,
            publicOnly: isPublicOnly(ctx.caller),
          }),
        );
  return json(200, await repositoryPage(ctx, limit, answer));
}
