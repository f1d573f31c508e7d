/**
 * Issue and comment assets (routers/api/v1/repo/issue_attachment.go, issue_comment_attachment.go):
 * `/repos/{owner}/{repo}/issues/{index}/assets[/{attachment_id}]` and `/issues/comments/{id}/assets[/…]`. The issue
 * or comment is looked up through the issues service as the caller sees it (404 when it is not in the repository),
 * which tells repos whether the issues or the pulls unit decides and who posted it. Readers list and get; an
 * issue's poster or a writer of the unit, or for a comment a writer of the unit who posted it or administers the
 * repository, uploads (multipart `attachment`, or a raw body with `?name=`: 201), renames (201) and deletes (204);
 * others 403, before any byte is stored. `[attachment] ENABLED = false` is 404 for all of them, as
 * Gitea's mustEnableAttachments.
 */
import { HttpError } from '@cairn/http';
import type { AttachmentParent } from '@cairn/proto/cairn/repos/v1/releases_service';
import { Code, isCairnError } from '@cairn/rpc';
import { accessAtLeast } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, doerOf, repoOf } from '../../api/types';
import {
  type EditAttachmentBody,
  EditAttachmentOptions,
  createAttachment,
  deleteAttachment,
  editAttachment,
  getAttachment,
  listAttachments,
} from '../../attachments/handlers';
import { canWriteUnit, repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS } from '../../issues/tracker-answers';

async function issueOf<B>(ctx: ApiContext<B>, index: number) {
  const { issue } = await ctx.services.clients.issues.getIssue({ scope: repoScopeOf(ctx), index });
  if (issue === undefined) throw new Error('GetIssue answered without the issue');
  return issue;
}

/** `{index}`'s issue as the parent. */
async function issueParent<B>(ctx: ApiContext<B>): Promise<AttachmentParent> {
  const issue = await issueOf(ctx, pathInt64(ctx.params.index));
  return { releaseId: 0, issueId: issue.id, commentId: 0, isPull: issue.isPull, posterId: issue.posterId };
}

/** `{id}`'s comment as the parent; a comment that is not a plain one has no attachments here (404). */
async function commentParent<B>(ctx: ApiContext<B>): Promise<AttachmentParent> {
  let comment;
  try {
    comment = (await ctx.services.clients.comments.getComment({ scope: repoScopeOf(ctx), id: pathInt64(ctx.params.id) })).comment;
  } catch (error) {
    if (isCairnError(error) && error.reason === 'not_plain_comment') throw HttpError.notFound();
    throw error;
  }
  if (comment === undefined) throw new Error('GetComment answered without the comment');
  const issue = await issueOf(ctx, comment.issueIndex);
  return { releaseId: 0, issueId: comment.issueId, commentId: comment.id, isPull: issue.isPull, posterId: comment.posterId };
}

type ParentOf = <B>(ctx: ApiContext<B>) => Promise<AttachmentParent>;

/** Gitea's mustEnableAttachments, then the parent. */
async function enabledParent<B>(ctx: ApiContext<B>, parentOf: ParentOf): Promise<AttachmentParent> {
  if (!ctx.services.config.attachment.enabled) throw HttpError.notFound();
  return parentOf(ctx);
}

/**
 * Refuses an upload the caller may not make before its bytes arrive; repos decides again when recording it
 * (domain/attachments.ts: Gitea's canUserWriteIssueAttachment and canUserWriteIssueCommentAttachment).
 */
function checkMayUpload<B>(ctx: ApiContext<B>, parent: AttachmentParent): void {
  const writes = canWriteUnit(ctx, parent.isPull ? 'repo.pulls' : 'repo.issues');
  const isPoster = doerOf(ctx).id === parent.posterId;
  if (parent.commentId === 0 ? isPoster || writes : (isPoster || accessAtLeast(repoOf(ctx).permission.accessMode, 'admin')) && writes) return;
  throw HttpError.forbidden(parent.commentId > 0 ? 'user should have permission to edit comment' : 'user should have permission to write issue');
}

function register(api: ApiRegistry, path: string, operations: { list: string; create: string; get: string; edit: string; remove: string }, parentOf: ParentOf): void {
  const reader = { scope: 'issue', auth: 'optional', repo: { mode: 'read' } } as const;
  const writer = { scope: 'issue', auth: 'required', repo: { mode: 'read', archived: 'refuse' }, errors: TRACKER_ERRORS } as const;
  const withParent =
    <B>(work: (ctx: ApiContext<B>, parent: AttachmentParent) => Promise<ApiReply>) =>
    async (ctx: ApiContext<B>) =>
      work(ctx, await enabledParent(ctx, parentOf));

  api.route({ ...reader, method: 'get', path, operationId: operations.list, handler: withParent(listAttachments) });
  api.route({
    ...writer,
    method: 'post',
    path,
    operationId: operations.create,
    streamBody: true,
    handler: withParent(async (ctx, parent) => {
      checkMayUpload(ctx, parent);
      return createAttachment(ctx, parent);
    }),
  });
  const one = `${path}/{attachment_id}`;
  api.route({ ...reader, method: 'get', path: one, operationId: operations.get, handler: withParent(getAttachment) });
  api.route<EditAttachmentBody>({ ...writer, method: 'patch', path: one, operationId: operations.edit, body: EditAttachmentOptions, handler: withParent(editAttachment) });
  api.route({ ...writer, method: 'delete', path: one, operationId: operations.remove, handler: withParent(deleteAttachment) });
}

export function registerIssueAttachmentRoutes(api: ApiRegistry): void {
  register(
    api,
    '/repos/{owner}/{repo}/issues/comments/{id}/assets',
    {
      list: 'issueListIssueCommentAttachments',
      create: 'issueCreateIssueCommentAttachment',
      get: 'issueGetIssueCommentAttachment',
      edit: 'issueEditIssueCommentAttachment',
      remove: 'issueDeleteIssueCommentAttachment',
    },
    commentParent,
  );
  register(
    api,
    '/repos/{owner}/{repo}/issues/{index}/assets',
    {
      list: 'issueListIssueAttachments',
      create: 'issueCreateIssueAttachment',
      get: 'issueGetIssueAttachment',
      edit: 'issueEditIssueAttachment',
      remove: 'issueDeleteIssueAttachment',
    },
    issueParent,
  );
}
