/**
 * social's Reaction → Gitea's `Reaction` (routers/api/v1/repo/issue_reaction.go): `{user, content, created_at}`.
 * A list's users arrive in one accounts batch, shaped for the caller; a user whose account is gone is Gitea's
 * Ghost user (as `ReactionList.LoadUsers` does).
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Reaction } from '@cairn/proto/cairn/social/v1/social_service';
import type { ConvertWith } from './services';
import { ghostUser, replaceUser } from './ghost-user';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `api.Reaction`, keys in Gitea's order. */
export interface ApiReaction {
  user: ApiUser;
  content: string;
  created_at: string;
}

export function toApiReaction(user: ApiUser, reaction: Reaction): ApiReaction {
  return { user, content: reaction.content, created_at: goTime(reaction.created) };
}

/** The reactions in the order given, each with its user as `viewer` may see them. */
export async function toApiReactions(
  services: ConvertWith<'users'>,
  viewer: Actor | undefined,
  reactions: readonly Reaction[],
): Promise<ApiReaction[]> {
  const rootUrl = services.config.server.rootUrl;
  const ids = [...new Set(reactions.map((reaction) => reaction.userId))];
  const { users } = ids.length === 0 ? { users: [] } : await services.clients.users.batchGetUsers({ ids, viewer });
  const byId = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl })]));
  const noReply = services.config.service.noReplyAddress;
  // Gitea's ReactionList.LoadUsers: a migrated reaction of a source user with no account here shows a replacement user.
  return reactions.map((reaction) =>
    toApiReaction(
      reaction.originalAuthor !== ''
        ? replaceUser(rootUrl, viewer, noReply, `${reaction.originalAuthor}(${reaction.originalService})`)
        : (byId.get(reaction.userId) ?? ghostUser(rootUrl, viewer, noReply)),
      reaction,
    ),
  );
}
