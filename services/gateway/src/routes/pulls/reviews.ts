/**
 * Pull-request reviews and requested reviewers (routers/api/v1/repo/pull_review.go). The issues service keeps the
 * reviews and applies Gitea's rules with Gitea's messages (preparePullReviewType: the poster may not approve or
 * reject, a change request needs a body, a comment review a body or line comments — 422; only a pending review is
 * submitted, not into pending again — 422; dismissals by repository admins, of approvals and change requests, on open
 * pull requests — 403; deleting by the reviewer or a site admin — 403; IsValidReviewRequest — 422). This file reads
 * bodies, resolves reviewers and answers Gitea's statuses: create, submit, dismiss and undismiss 200 with the
 * PullReview; requested reviewers by user name or e-mail (404 `User 'x' not exist`) and, on an organization's
 * repository, teams by name (the service's 404 `Team 'x' not exist`), 201 with the review requests made, 204 when
 * cancelled. Resolving and unresolving a review comment's conversation: 204; 400 for a comment that is not a review
 * comment, 403 for someone who may not (the service's CanMarkConversation).
 */
import { type GoField, HttpError, go, goStruct } from '@cairn/http';
import type { NewReviewComment, Review } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { toApiPullReview, toApiPullReviewComments, toApiPullReviews } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { repoScopeOf } from '../../issues/scope';
import { pageRequest, reviewerIdsByName } from '../issues/issue-params';
import { PULL_READER, PULL_SIGNED_IN, pullHandler, pullIndexOf, teamNamed } from './pull-context';
import { TRACKER_ERRORS } from '../../issues/tracker-answers';
import { registerPullByBranchesRoute } from './pulls';

/** A review comment as Gitea's `api.CreatePullReviewComment` reads it. */
const CreatePullReviewComment = {
  path: go.string('Path'),
  body: go.string('Body'),
  old_position: go.int64('OldLineNum'),
  new_position: go.int64('NewLineNum'),
};

/** `[]api.CreatePullReviewComment`: each element decoded as encoding/json does (keys any case, null is absent). */
function reviewCommentsField(goName: string): GoField<NewReviewComment[]> {
  const keys = Object.keys(CreatePullReviewComment) as Array<keyof typeof CreatePullReviewComment>;
  return {
    goName,
    goType: '[]structs.CreatePullReviewComment',
    zero: [],
    decode(json) {
      if (!Array.isArray(json)) return { ok: false, found: Array.isArray(json) ? 'array' : json === null ? 'null' : typeof json === 'object' ? 'object' : typeof json === 'boolean' ? 'bool' : typeof json };
      const comments: NewReviewComment[] = [];
      for (const item of json) {
        const comment = { path: '', body: '', old_position: 0, new_position: 0 };
        if (item !== null) {
          if (typeof item !== 'object' || Array.isArray(item)) {
            return { ok: false, found: Array.isArray(item) ? 'array' : typeof item === 'boolean' ? 'bool' : typeof item, intoType: 'structs.CreatePullReviewComment' };
          }
          for (const [jsonKey, value] of Object.entries(item as Record<string, unknown>)) {
            const key = keys.find((k) => k === jsonKey) ?? keys.find((k) => k.toLowerCase() === jsonKey.toLowerCase());
            if (key === undefined || value === null) continue;
            const decoded = CreatePullReviewComment[key].decode(value);
            if (!decoded.ok) return { ...decoded, intoType: CreatePullReviewComment[key].goType, path: key };
            (comment as Record<string, unknown>)[key] = decoded.value;
          }
        }
        comments.push({ path: comment.path, body: comment.body, oldPosition: comment.old_position, newPosition: comment.new_position });
      }
      return { ok: true, value: comments };
    },
    check: () => undefined,
  };
}

/** Gitea's `api.CreatePullReviewOptions`. */
export const CreatePullReviewOptions = goStruct('CreatePullReviewOptions', {
  event: go.string('Event'),
  body: go.string('Body'),
  commit_id: go.string('CommitID'),
  comments: reviewCommentsField('Comments'),
});
type CreateReviewBody = { event: string; body: string; commit_id: string; comments: NewReviewComment[] };

/** Gitea's `api.SubmitPullReviewOptions`. */
export const SubmitPullReviewOptions = goStruct('SubmitPullReviewOptions', { event: go.string('Event'), body: go.string('Body') });
type SubmitReviewBody = { event: string; body: string };

/** Gitea's `api.DismissPullReviewOptions`. */
export const DismissPullReviewOptions = goStruct('DismissPullReviewOptions', { message: go.string('Message'), priors: go.bool('Priors') });
type DismissReviewBody = { message: string; priors: boolean };

/** Gitea's `api.PullReviewRequestOptions`. */
export const PullReviewRequestOptions = goStruct('PullReviewRequestOptions', {
  reviewers: go.stringSlice('Reviewers'),
  team_reviewers: go.stringSlice('TeamReviewers'),
});
type ReviewRequestBody = { reviewers: string[]; team_reviewers: string[] };

/**
 * The state a review event asks for: "APPROVED", "REQUEST_CHANGES" or "COMMENT", else "" (a pending review, as Gitea
 * reads any other event). What each needs (a body, line comments, not the poster) is the service's rule.
 */
export function reviewStateOf(event: string): string {
  return event === 'APPROVED' || event === 'REQUEST_CHANGES' || event === 'COMMENT' ? event : '';
}

function reviewIdOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.id);
}

function reviewOf(review: Review | undefined): Review {
  if (review === undefined) throw new Error('the issues service answered without the review');
  return review;
}

async function answerReview<B>(ctx: ApiContext<B>, review: Review | undefined): Promise<ApiReply> {
  return json(200, await toApiPullReview(ctx.services, ctx.viewer, reviewOf(review), repoOf(ctx).repository, pullIndexOf(ctx)));
}

async function getReview<B>(ctx: ApiContext<B>): Promise<Review> {
  const { review } = await ctx.services.clients.reviews.getReview({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx), id: reviewIdOf(ctx) });
  return reviewOf(review);
}

/** Gitea's resolve and unresolve of a review comment's conversation (`POST …/pulls/comments/{id}/resolve`). */
function registerResolveRoute(api: ApiRegistry, action: 'resolve' | 'unresolve'): void {
  api.route({
    ...PULL_SIGNED_IN,
    errors: { ...TRACKER_ERRORS, reasons: { ...TRACKER_ERRORS.reasons, not_review_comment: 400 } },
    method: 'post',
    path: `/repos/{owner}/{repo}/pulls/comments/{id}/${action}`,
    operationId: action === 'resolve' ? 'repoResolvePullReviewComment' : 'repoUnresolvePullReviewComment',
    handler: pullHandler(async (ctx) => {
      await ctx.services.clients.reviews.resolveReviewComment({ scope: repoScopeOf(ctx), id: pathInt64(ctx.params.id), resolve: action === 'resolve' });
      return noContent();
    }),
  });
}

export function registerReviewRoutes(api: ApiRegistry): void {
  registerResolveRoute(api, 'resolve');
  registerResolveRoute(api, 'unresolve');

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
    operationId: 'repoListPullReviews',
    handler: pullHandler(async (ctx) => {
      const { page, limit } = ctx.listOptions();
      const index = pullIndexOf(ctx);
      const { reviews, total } = await ctx.services.clients.reviews.listReviews({ scope: repoScopeOf(ctx), index, page: pageRequest(page, limit) });
      ctx.setTotalCount(total);
      return json(200, await toApiPullReviews(ctx.services, ctx.viewer, reviews, repoOf(ctx).repository, index));
    }),
  });

  api.route<CreateReviewBody>({
    ...PULL_SIGNED_IN,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
    operationId: 'repoCreatePullReview',
    body: CreatePullReviewOptions,
    handler: pullHandler(async (ctx) => {
      const { body } = ctx;
      const { review } = await ctx.services.clients.reviews.createReview({
        scope: repoScopeOf(ctx),
        index: pullIndexOf(ctx),
        state: reviewStateOf(body.event),
        body: body.body,
        commitId: body.commit_id,
        comments: body.comments,
      });
      return answerReview(ctx, review);
    }),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
    operationId: 'repoGetPullReview',
    handler: pullHandler(async (ctx) => answerReview(ctx, await getReview(ctx))),
  });

  api.route<SubmitReviewBody>({
    ...PULL_SIGNED_IN,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
    operationId: 'repoSubmitPullReview',
    body: SubmitPullReviewOptions,
    handler: pullHandler(async (ctx) => {
      // The service refuses all but a pending review (422), and an event that leaves it pending.
      const { review } = await ctx.services.clients.reviews.submitReview({
        scope: repoScopeOf(ctx),
        index: pullIndexOf(ctx),
        id: reviewIdOf(ctx),
        state: reviewStateOf(ctx.body.event),
        body: ctx.body.body,
      });
      return answerReview(ctx, review);
    }),
  });

  api.route({
    ...PULL_SIGNED_IN,
    method: 'delete',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
    operationId: 'repoDeletePullReview',
    handler: pullHandler(async (ctx) => {
      await ctx.services.clients.reviews.deleteReview({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx), id: reviewIdOf(ctx) });
      return noContent();
    }),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments',
    operationId: 'repoGetPullReviewComments',
    handler: pullHandler(async (ctx) => {
      const review = await getReview(ctx);
      const index = pullIndexOf(ctx);
      const { comments } = await ctx.services.clients.reviews.listReviewComments({ scope: repoScopeOf(ctx), index, id: review.id });
      return json(200, await toApiPullReviewComments(ctx.services, ctx.viewer, comments, review, repoOf(ctx).repository, index));
    }),
  });

  api.route<DismissReviewBody>({
    ...PULL_SIGNED_IN,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals',
    operationId: 'repoDismissPullReview',
    body: DismissPullReviewOptions,
    handler: pullHandler(async (ctx) => {
      const dismissed = await ctx.services.clients.reviews.dismissReview({
        scope: repoScopeOf(ctx),
        index: pullIndexOf(ctx),
        id: reviewIdOf(ctx),
        message: ctx.body.message,
        priors: ctx.body.priors,
      });
      return answerReview(ctx, dismissed.review);
    }),
  });

  api.route({
    ...PULL_SIGNED_IN,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals',
    operationId: 'repoUnDismissPullReview',
    handler: pullHandler(async (ctx) => {
      const undismissed = await ctx.services.clients.reviews.undismissReview({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx), id: reviewIdOf(ctx) });
      return answerReview(ctx, undismissed.review);
    }),
  });

  api.route<ReviewRequestBody>({
    ...PULL_SIGNED_IN,
    method: 'post',
    path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
    operationId: 'repoCreatePullReviewRequests',
    body: PullReviewRequestOptions,
    handler: pullHandler(async (ctx) => {
      const index = pullIndexOf(ctx);
      const reviewers = await reviewerIdsByName(ctx.services, ctx.viewer, ctx.body.reviewers);
      const { reviews } = await teamNamed(() =>
        ctx.services.clients.reviews.requestReviewers({ scope: repoScopeOf(ctx), index, reviewerIds: reviewers, teamNames: ctx.body.team_reviewers }),
      );
      return json(201, await toApiPullReviews(ctx.services, ctx.viewer, reviews, repoOf(ctx).repository, index));
    }),
  });

  api.route<ReviewRequestBody>({
    ...PULL_SIGNED_IN,
    method: 'delete',
    path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
    operationId: 'repoDeletePullReviewRequests',
    body: PullReviewRequestOptions,
    handler: pullHandler(async (ctx) => {
      const reviewers = await reviewerIdsByName(ctx.services, ctx.viewer, ctx.body.reviewers);
      await teamNamed(() =>
        ctx.services.clients.reviews.cancelReviewRequests({ scope: repoScopeOf(ctx), index: pullIndexOf(ctx), reviewerIds: reviewers, teamNames: ctx.body.team_reviewers }),
      );
      return noContent();
    }),
  });

  // `GET …/pulls/{base}/{head}` spans the rest of the path: after every `/pulls/{index}/…` route, these included.
  registerPullByBranchesRoute(api);
}
