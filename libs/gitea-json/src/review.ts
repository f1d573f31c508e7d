/**
 * issues' reviews → Gitea's `PullReview` and `PullReviewComment` (services/convert/pull_review.go `ToPullReview`,
 * `ToPullReviewCommentList`). Reviewers and posters are shaped for the caller (`ToUser(ctx, user, doer)`) with one
 * accounts call per answer; a user whose account is gone is Gitea's Ghost. A team's review request has the team
 * (one more accounts call) and `user` null, as Gitea's ToUser of no reviewer. A review's `html_url` is the anchor
 * of its timeline comment (`<pull>#issuecomment-<id>`), empty for a review without one (pending reviews, requests);
 * a review comment's `resolver` is who resolved its conversation, null while unresolved.
 */
import { goTime } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Review, ReviewComment } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertServices, ConvertWith } from './services';
import { ghostUser } from './ghost-user';
import { type ApiTeam, toApiTeam } from './org';
import { repoHtmlUrl } from './repository';
import { type ApiUser, toApiUser } from './user';

/** Gitea's review states. */
export type ApiReviewState = 'APPROVED' | 'PENDING' | 'COMMENT' | 'REQUEST_CHANGES' | 'REQUEST_REVIEW';

const REVIEW_STATES: readonly string[] = ['APPROVED', 'PENDING', 'COMMENT', 'REQUEST_CHANGES', 'REQUEST_REVIEW'];

/** Gitea's `api.PullReview`, keys in its order. */
export interface ApiPullReview {
  id: number;
  user: ApiUser | null;
  team: ApiTeam | null;
  state: ApiReviewState | '';
  body: string;
  commit_id: string;
  stale: boolean;
  official: boolean;
  dismissed: boolean;
  comments_count: number;
  submitted_at: string;
  updated_at: string;
  html_url: string;
  pull_request_url: string;
}

/** Gitea's `api.PullReviewComment`, keys in its order. */
export interface ApiPullReviewComment {
  id: number;
  body: string;
  user: ApiUser;
  resolver: ApiUser | null;
  pull_request_review_id: number;
  created_at: string;
  updated_at: string;
  path: string;
  commit_id: string;
  original_commit_id: string;
  diff_hunk: string;
  position: number;
  original_position: number;
  html_url: string;
  pull_request_url: string;
}

async function usersFor(services: ConvertWith<'users'>, viewer: Actor | undefined, ids: readonly number[]): Promise<(id: number) => ApiUser> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  const rootUrl = services.config.server.rootUrl;
  const users = new Map<number, User>();
  if (wanted.length > 0) {
    const answer = await services.clients.users.batchGetUsers({ ids: wanted, viewer });
    for (const user of answer.users) users.set(user.id, user);
  }
  let ghost: ApiUser | undefined;
  return (id) => {
    const user = users.get(id);
    if (user !== undefined) return toApiUser(user, { rootUrl });
    ghost ??= ghostUser(rootUrl, viewer, services.config.service.noReplyAddress);
    return ghost;
  };
}

/** Gitea's `api.Team` of each of the teams `ids` that still exist (read by id: no access check, as Gitea's ToTeam). */
export async function teamsById(services: ConvertWith<'teams'>, viewer: Actor | undefined, ids: readonly number[]): Promise<Map<number, ApiTeam>> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return new Map();
  const { teams } = await services.clients.teams.batchGetTeams({ viewer, ids: wanted });
  return new Map(teams.map((team) => [team.id, toApiTeam(team, services.config.server.rootUrl)]));
}

function pullHtmlUrl(services: Pick<ConvertServices, 'config'>, repository: Repository, index: number): string {
  return `${repoHtmlUrl(services.config.server.rootUrl, repository)}/pulls/${index}`;
}

/** Gitea's PullReview for each of `reviews` of pull request `index` of `repository`. */
export async function toApiPullReviews(
  services: ConvertWith<'users' | 'teams'>,
  viewer: Actor | undefined,
  reviews: readonly Review[],
  repository: Repository,
  index: number,
): Promise<ApiPullReview[]> {
  const [user, teams] = await Promise.all([
    usersFor(services, viewer, reviews.map((review) => review.reviewerId)),
    teamsById(services, viewer, reviews.map((review) => review.reviewerTeamId)),
  ]);
  const pullUrl = pullHtmlUrl(services, repository, index);
  return reviews.map((review) => ({
    id: review.id,
    // A team's request has no reviewer: Gitea's ToUser(nil) is null.
    user: review.reviewerId > 0 ? user(review.reviewerId) : null,
    team: teams.get(review.reviewerTeamId) ?? null,
    state: REVIEW_STATES.includes(review.state) ? (review.state as ApiReviewState) : '',
    body: review.body,
    commit_id: review.commitId,
    stale: review.stale,
    official: review.official,
    dismissed: review.dismissed,
    comments_count: review.commentsCount,
    submitted_at: goTime(review.submitted),
    updated_at: goTime(review.updated),
    html_url: review.timelineCommentId > 0 ? `${pullUrl}#issuecomment-${review.timelineCommentId}` : '',
    pull_request_url: pullUrl,
  }));
}

export async function toApiPullReview(
  services: ConvertWith<'users' | 'teams'>,
  viewer: Actor | undefined,
  review: Review,
  repository: Repository,
  index: number,
): Promise<ApiPullReview> {
  const [converted] = await toApiPullReviews(services, viewer, [review], repository, index);
  return converted;
}

/**
 * Gitea's PullReviewComment for each of the `comments` of `review`: a pending review's comments link to the files
 * view (`…/pulls/<n>/files#issuecomment-<id>`), a submitted review's to the conversation.
 */
export async function toApiPullReviewComments(
  services: ConvertWith<'users' | 'teams'>,
  viewer: Actor | undefined,
  comments: readonly ReviewComment[],
  review: Pick<Review, 'state'>,
  repository: Repository,
  index: number,
): Promise<ApiPullReviewComment[]> {
  const user = await usersFor(services, viewer, comments.flatMap((comment) => [comment.posterId, comment.resolverId]));
  const pullUrl = pullHtmlUrl(services, repository, index);
  const anchorBase = review.state === 'PENDING' ? `${pullUrl}/files` : pullUrl;
  return comments.map((comment) => ({
    id: comment.id,
    body: comment.body,
    user: user(comment.posterId),
    resolver: comment.resolverId > 0 ? user(comment.resolverId) : null,
    pull_request_review_id: comment.reviewId,
    created_at: goTime(comment.created),
    updated_at: goTime(comment.updated),
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.originalCommitId,
    diff_hunk: comment.diffHunk,
    position: comment.position,
    original_position: comment.originalPosition,
    html_url: `${anchorBase}#issuecomment-${comment.id}`,
    pull_request_url: pullUrl,
  }));
}
