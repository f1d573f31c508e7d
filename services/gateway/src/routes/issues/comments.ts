/**
 * Issue comments (routers/api/v1/repo/issue_comment.go). The issues service decides who may do what (readers
 * comment, locked issues take writers' comments only, the poster or an issue writer edits and deletes); this
 * reads the request and shapes the answers:
 * - lists: one issue's comments (oldest first, not paged, X-Total-Count) and the repository's (paged,
 *   X-Total-Count), `since`/`before` on the updated time (RFC 3339; 422 otherwise);
 * - `/issues/comments/{id}`: a comment of another repository is 404; one that is not a plain comment answers 204
 *   to GET and PATCH and 400 to DELETE, as Gitea; a refused edit or deletion is Gitea's bare 403 (no body);
 * - creating answers 201, editing 200, deleting 204; an archived repository refuses creating and editing (423)
 *   but not deleting (Gitea has no archived check there). The deprecated `/issues/{index}/comments/{id}` routes
 *   act on the comment alone, as Gitea's do.
 */
import { go, goStruct } from '@cairn/http';
import type { Comment } from '@cairn/proto/cairn/issues/v1/issues_service';
import { isCairnError } from '@cairn/rpc';
import { toApiComment, toApiComments } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { queryBeforeSince } from '../../issues/before-since';
import { repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS } from '../../issues/tracker-answers';
import { pageOf } from '../orgs/params';

/** Gitea's `api.CreateIssueCommentOption`. */
export const CreateIssueCommentOption = goStruct('CreateIssueCommentOption', {
  body: go.string('Body', { required: true }),
});

/** Gitea's `api.EditIssueCommentOption`. */
export const EditIssueCommentOption = goStruct('EditIssueCommentOption', {
  body: go.string('Body', { required: true }),
});

type CommentBody = { body: string };

/** What Gitea answers for a comment that is not a plain comment, per method. */
const NOT_PLAIN_STATUS = { get: 204, patch: 204, delete: 400 } as const;

/**
 * Runs a call on one comment: the service's bare refusal is Gitea's `ctx.Status(403)` and another kind of comment
 * its bare 204/400; anything else goes on to the route's table.
 */
async function onComment(method: keyof typeof NOT_PLAIN_STATUS, work: () => Promise<ApiReply>): Promise<ApiReply> {
  try {
    return await work();
  } catch (error) {
    if (isCairnError(error) && error.reason === 'comment_forbidden') return { status: 403 };
    if (isCairnError(error) && error.reason === 'not_plain_comment') return { status: NOT_PLAIN_STATUS[method] };
    throw error;
  }
}

function commentOf(reply: { comment?: Comment }, what: string): Comment {
  if (reply.comment === undefined) throw new Error(`${what} answered without the comment`);
  return reply.comment;
}

async function editComment(ctx: ApiContext<CommentBody>): Promise<ApiReply> {
  return onComment('patch', async () => {
    const reply = await ctx.services.clients.comments.editComment({ scope: repoScopeOf(ctx), id: pathInt64(ctx.params.id), body: ctx.body.body });
    return json(200, await toApiComment(ctx.services, ctx.viewer, repoOf(ctx).repository, commentOf(reply, 'EditComment')));
  });
}

async function deleteComment<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  return onComment('delete', async () => {
    await ctx.services.clients.comments.deleteComment({ scope: repoScopeOf(ctx), id: pathInt64(ctx.params.id) });
    return noContent();
  });
}

export function registerCommentRoutes(api: ApiRegistry): void {
  // Gitea's `/issues` group needs the issues or the pull requests unit; the service checks the issue's own unit.
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' } } as const;
  const writer = { scope: 'issue', auth: 'required', repo: { mode: 'read', archived: 'refuse' }, errors: TRACKER_ERRORS } as const;
  const deleter = { scope: 'issue', auth: 'required', repo: { mode: 'read' } } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/comments',
    operationId: 'issueGetRepoComments',
    handler: async (ctx) => {
      const { before, since } = queryBeforeSince(ctx.query);
      const { comments, total } = await ctx.services.clients.comments.listRepoComments({ scope: repoScopeOf(ctx), since, before, page: pageOf(ctx) });
      ctx.setTotalCount(total);
      return json(200, await toApiComments(ctx.services, ctx.viewer, repoOf(ctx).repository, comments));
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueGetComment',
    handler: (ctx) =>
      onComment('get', async () => {
        const reply = await ctx.services.clients.comments.getComment({ scope: repoScopeOf(ctx), id: pathInt64(ctx.params.id) });
        return json(200, await toApiComment(ctx.services, ctx.viewer, repoOf(ctx).repository, commentOf(reply, 'GetComment')));
      }),
  });

  api.route<CommentBody>({
    ...writer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueEditComment',
    body: EditIssueCommentOption,
    handler: editComment,
  });

  api.route({
    ...deleter,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/comments/{id}',
    operationId: 'issueDeleteComment',
    handler: deleteComment,
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/{index}/comments',
    operationId: 'issueGetComments',
    handler: async (ctx) => {
      const { before, since } = queryBeforeSince(ctx.query);
      const { comments } = await ctx.services.clients.comments.listIssueComments({
        scope: repoScopeOf(ctx),
        index: pathInt64(ctx.params.index),
        since,
        before,
      });
      ctx.setTotalCount(comments.length);
      return json(200, await toApiComments(ctx.services, ctx.viewer, repoOf(ctx).repository, comments));
    },
  });

  api.route<CommentBody>({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/issues/{index}/comments',
    operationId: 'issueCreateComment',
    body: CreateIssueCommentOption,
    handler: async (ctx) => {
      const reply = await ctx.services.clients.comments.createComment({ scope: repoScopeOf(ctx), index: pathInt64(ctx.params.index), body: ctx.body.body });
      return json(201, await toApiComment(ctx.services, ctx.viewer, repoOf(ctx).repository, commentOf(reply, 'CreateComment')));
    },
  });

  api.route<CommentBody>({
    ...writer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}',
    operationId: 'issueEditCommentDeprecated',
    body: EditIssueCommentOption,
    handler: editComment,
  });

  api.route({
    ...deleter,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}',
    operationId: 'issueDeleteCommentDeprecated',
    handler: deleteComment,
  });
}
