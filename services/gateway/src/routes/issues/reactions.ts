/**
 * Reactions on issues and comments (routers/api/v1/repo/issue_reaction.go). The issue (or comment) is read through
 * the issues service as the caller may read it (a bare 404 otherwise, and for a comment of another repository);
 * social decides the rest: the allowed kinds (`[ui] REACTIONS`, others 403 `'x' is not an allowed reaction`) and
 * locked issues (403 `no permission to change reaction` unless the caller may write issues, or pull requests for
 * one, which repository and site administrators may). Listing needs no token; an issue's list is paged with
 * X-Total-Count, a comment's is not; an empty list is `null`, as Gitea sends it. Creating answers 201, or 200 with
 * the existing reaction; deleting answers 204 even when there was nothing to delete. Gitea refuses nothing here
 * for an archived repository, so neither does this.
 */
import { go, goStruct } from '@cairn/http';
import type { Comment, Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { ReactionTarget } from '@cairn/proto/cairn/social/v1/social_service';
import { type ApiReaction, toApiReaction, toApiReactions, toApiUser } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, doerOf, json, noContent, repoOf } from '../../api/types';
import { canWriteUnit, repoScopeOf } from '../../issues/scope';
import { trackerAnswer } from '../../issues/tracker-answers';

/** Gitea's `api.EditReactionOption`. */
export const EditReactionOption = goStruct('EditReactionOption', {
  content: go.string('Reaction'),
});
type EditReaction = { content: string };

const UNIT_ISSUES = 'repo.issues';
const UNIT_PULLS = 'repo.pulls';

/** The `{index}` issue as the caller may read it. */
async function readIssue<B>(ctx: ApiContext<B>, index: number): Promise<Issue> {
  const { issue } = await ctx.services.clients.issues.getIssue({ scope: repoScopeOf(ctx), index });
  if (issue === undefined) throw new Error('GetIssue answered without an issue');
  return issue;
}

/** The `{id}` comment of this repository as the caller may read it. */
async function readComment<B>(ctx: ApiContext<B>): Promise<Comment> {
  const id = pathInt64(ctx.params.id);
  const { comment } = await ctx.services.clients.comments.getComment({ scope: repoScopeOf(ctx), id });
  if (comment === undefined) throw new Error('GetComment answered without a comment');
  return comment;
}

/**
 * Gitea's `CanWriteIssuesOrPulls`: write on the unit the issue belongs to, which repository administrators have on
 * every enabled unit; site administrators too.
 */
function targetOf(issue: Issue, commentId: number): ReactionTarget {
  return { repoId: issue.repoId, issueId: issue.id, commentId, issueLocked: issue.isLocked };
}

/** A list as Gitea sends it: `null` when there is nothing (its handler leaves the slice nil). */
function listReply(reactions: ApiReaction[]): ApiReply {
  return json(200, reactions.length === 0 ? null : reactions);
}

async function createReaction(ctx: ApiContext<EditReaction>, issue: Issue, commentId: number): Promise<ApiReply> {
  const doer = doerOf(ctx);
  const { reaction, created } = await ctx.services.clients.reactions.createReaction({
    target: targetOf(issue, commentId),
    userId: doer.id,
    userName: doer.login,
    content: ctx.body.content,
    canWrite: canWriteUnit(ctx, issue.isPull ? UNIT_PULLS : UNIT_ISSUES),
  });
  if (reaction === undefined) throw new Error('CreateReaction answered without a reaction');
  // The caller sees themself in full (Gitea: ToUser(doer, doer)).
  const user = toApiUser(doer, { rootUrl: ctx.services.config.server.rootUrl });
  return json(created ? 201 : 200, toApiReaction(user, reaction));
}

async function deleteReaction(ctx: ApiContext<EditReaction>, issue: Issue, commentId: number): Promise<ApiReply> {
  await ctx.services.clients.reactions.deleteReaction({
    target: targetOf(issue, commentId),
    userId: doerOf(ctx).id,
    content: ctx.body.content,
    canWrite: canWriteUnit(ctx, issue.isPull ? UNIT_PULLS : UNIT_ISSUES),
  });
  return noContent();
}

const ISSUE_PATH = '/repos/{owner}/{repo}/issues/{index}/reactions';
const COMMENT_PATH = '/repos/{owner}/{repo}/issues/comments/{id}/reactions';

/** What every reaction route shares: the issue scope, and the repository readable by the caller. */
const readable = { scope: 'issue', repo: { mode: 'read' } } as const;

export function registerReactionRoutes(api: ApiRegistry): void {
  api.route({
    ...readable,
    method: 'get',
    path: ISSUE_PATH,
    operationId: 'issueGetIssueReactions',
    auth: 'optional',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const issue = await readIssue(ctx, pathInt64(ctx.params.index));
        const { page, limit } = ctx.listOptions();
        const { reactions, total } = await ctx.services.clients.reactions.listReactions({ target: targetOf(issue, 0), page: { page, limit } });
        ctx.setTotalCount(total);
        return listReply(await toApiReactions(ctx.services, ctx.viewer, reactions));
      }),
  });

  api.route<EditReaction>({
    ...readable,
    method: 'post',
    path: ISSUE_PATH,
    operationId: 'issuePostIssueReaction',
    auth: 'required',
    body: EditReactionOption,
    handler: (ctx) => trackerAnswer(async () => createReaction(ctx, await readIssue(ctx, pathInt64(ctx.params.index)), 0)),
  });

  api.route<EditReaction>({
    ...readable,
    method: 'delete',
    path: ISSUE_PATH,
    operationId: 'issueDeleteIssueReaction',
    auth: 'required',
    body: EditReactionOption,
    handler: (ctx) => trackerAnswer(async () => deleteReaction(ctx, await readIssue(ctx, pathInt64(ctx.params.index)), 0)),
  });

  api.route({
    ...readable,
    method: 'get',
    path: COMMENT_PATH,
    operationId: 'issueGetCommentReactions',
    auth: 'optional',
    handler: (ctx) =>
      trackerAnswer(async () => {
        const comment = await readComment(ctx);
        const target: ReactionTarget = { repoId: comment.repoId, issueId: comment.issueId, commentId: comment.id, issueLocked: false };
        // Not paged (Gitea's FindCommentReactions): every reaction of the comment.
        const { reactions } = await ctx.services.clients.reactions.listReactions({ target });
        return listReply(await toApiReactions(ctx.services, ctx.viewer, reactions));
      }),
  });

  api.route<EditReaction>({
    ...readable,
    method: 'post',
    path: COMMENT_PATH,
    operationId: 'issuePostCommentReaction',
    auth: 'required',
    body: EditReactionOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const comment = await readComment(ctx);
        // The comment's issue, for its lock and its kind (issue or pull request).
        return createReaction(ctx, await readIssue(ctx, comment.issueIndex), comment.id);
      }),
  });

  api.route<EditReaction>({
    ...readable,
    method: 'delete',
    path: COMMENT_PATH,
    operationId: 'issueDeleteCommentReaction',
    auth: 'required',
    body: EditReactionOption,
    handler: (ctx) =>
      trackerAnswer(async () => {
        const comment = await readComment(ctx);
        return deleteReaction(ctx, await readIssue(ctx, comment.issueIndex), comment.id);
      }),
  });
}
