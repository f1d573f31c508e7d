/**
 * issues' Comment → Gitea's `Comment` JSON (services/convert/issue_comment.go `ToAPIComment`). Posters arrive in
 * one accounts batch per response and are shaped as Gitea shapes them there, for no viewer (`ToUser(ctx, c.Poster,
 * nil)`: placeholder e-mail, no account details); a poster whose account is gone is the Ghost user.
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Comment } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertWith } from './services';
import { ghostUser } from './ghost-user';
import { type ApiAttachment, attachmentsByParent } from './attachment';
import { issueHtmlUrl } from './issue';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `api.Comment`, keys in its order. */
export interface ApiComment {
  id: number;
  html_url: string;
  pull_request_url: string;
  issue_url: string;
  user: ApiUser;
  original_author: string;
  original_author_id: number;
  body: string;
  assets: ApiAttachment[];
  created_at: string;
  updated_at: string;
}

/** Comments of `repository`, in the order given, as `viewer` sees them. */
export async function toApiComments(services: ConvertWith<'users' | 'attachments'>, viewer: Actor | undefined, repository: Repository, comments: readonly Comment[]): Promise<ApiComment[]> {
  const rootUrl = services.config.server.rootUrl;
  const posterIds = [...new Set(comments.map((comment) => comment.posterId).filter((id) => id > 0))];
  const [assets, { users }] = await Promise.all([
    attachmentsByParent(services, viewer, { issueIds: [], commentIds: comments.map((comment) => comment.id) }),
    posterIds.length === 0 ? { users: [] } : services.clients.users.batchGetUsers({ ids: posterIds, viewer: undefined }),
  ]);
  const posters = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl })]));
  const ghost = ghostUser(rootUrl, undefined, services.config.service.noReplyAddress);
  return comments.map((comment) => {
    // Gitea's Comment.HTMLURL: the issue's page and `#issuecomment-<id>`; IssueURL or PRURL: the issue's page.
    const issueUrl = issueHtmlUrl(rootUrl, repository, { index: comment.issueIndex, isPull: comment.issueIsPull });
    return {
      id: comment.id,
      html_url: `${issueUrl}#issuecomment-${comment.id}`,
      pull_request_url: comment.issueIsPull ? issueUrl : '',
      issue_url: comment.issueIsPull ? '' : issueUrl,
      user: posters.get(comment.posterId) ?? ghost,
      original_author: comment.originalAuthor,
      original_author_id: comment.originalAuthorId,
      body: comment.body,
      assets: assets.ofComment(comment.id),
      created_at: goTime(comment.created),
      updated_at: goTime(comment.updated),
    };
  });
}

export async function toApiComment(services: ConvertWith<'users' | 'attachments'>, viewer: Actor | undefined, repository: Repository, comment: Comment): Promise<ApiComment> {
  const [converted] = await toApiComments(services, viewer, repository, [comment]);
  if (converted === undefined) throw new Error('comment conversion answered nothing');
  return converted;
}
