/**
 * Users' `starred_repos_count` (Gitea's User.NumStars), computed for the caller: one social call for the stars of
 * every user on the page and at most two repos FilterReadable calls for all their repositories, never one call
 * per user. Gitea counts every star, private repositories included; Cairn counts what the caller would find in
 * that user's starred list (`GET /users/{username}/starred`, whose X-Total-Count this equals): repositories the
 * caller may read, private ones only on the caller's own list, none but public ones for a public-only token. So a
 * count never reveals a private repository, as no other count in Cairn does (watchers, stargazers and followers
 * are counted from what the caller may list). Followers are not stored yet: their counts stay 0.
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { type ApiUser, NO_SOCIAL_COUNTS, toApiUser } from '@cairn/gitea-json';
import type { ApiContext } from '../api/types';
import { isPublicOnly } from '../auth/caller';

/** User id → how many repositories they starred that the caller may see listed. */
export async function starredRepoCounts<B>(ctx: ApiContext<B>, userIds: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  const wanted = [...new Set(userIds.filter((id) => id > 0))];
  if (wanted.length === 0) return counts;
  const { users } = await ctx.services.clients.stars.batchListStarredRepos({ userIds: wanted });
  const viewerId = ctx.viewer?.userId ?? 0;
  const own = new Set<number>();
  const others = new Set<number>();
  for (const { userId, repoIds } of users) for (const id of repoIds) (userId === viewerId ? own : others).add(id);
  const readable = async (repoIds: Set<number>, excludePrivate: boolean): Promise<Set<number>> => {
    if (repoIds.size === 0) return new Set();
    const answer = await ctx.services.clients.repos.filterReadable({
      viewer: ctx.viewer,
      repoIds: [...repoIds],
      publicOnly: isPublicOnly(ctx.caller),
      excludePrivate,
    });
    return new Set(answer.repoIds);
  };
  const [ownShown, othersShown] = await Promise.all([readable(own, false), readable(others, true)]);
  for (const { userId, repoIds } of users) {
    const shown = userId === viewerId ? ownShown : othersShown;
    counts.set(userId, repoIds.filter((id) => shown.has(id)).length);
  }
  return counts;
}

/** Gitea's `User` objects for `users`, in order, with their counts as the caller may see them. */
export async function toApiUsersWithCounts<B>(ctx: ApiContext<B>, users: readonly User[]): Promise<ApiUser[]> {
  const starred = await starredRepoCounts(ctx, users.map((user) => user.id));
  const rootUrl = ctx.services.config.server.rootUrl;
  return users.map((user) => toApiUser(user, { rootUrl, social: { ...NO_SOCIAL_COUNTS, starredRepos: starred.get(user.id) ?? 0 } }));
}

/** One user (`GET /user`, `GET /users/{username}`). */
export async function toApiUserWithCounts<B>(ctx: ApiContext<B>, user: User): Promise<ApiUser> {
  const [converted] = await toApiUsersWithCounts(ctx, [user]);
  return converted;
}
