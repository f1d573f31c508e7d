/**
 * Gitea's review rules (routers/api/v1/repo/pull_review.go preparePullReviewType, models/issues/review.go
 * SubmitReview): which review type a requested state makes, and what each needs.
 */
import { CairnError } from '@cairn/rpc';
import { ReviewType, type ReviewTypeValue } from '../store/reviews';

/**
 * The review type of `state` ("APPROVED", "REQUEST_CHANGES", "COMMENT"; anything else is PENDING, as in Gitea).
 * The poster may neither approve nor request changes; a change request needs a body, a comment review a body or
 * line comments. INVALID_ARGUMENT (Gitea's 422) otherwise.
 */
export function reviewTypeOf(state: string, review: { isPoster: boolean; body: string; hasComments: boolean }): ReviewTypeValue {
  const hasBody = review.body.trim() !== '';
  switch (state) {
    case 'APPROVED':
      if (review.isPoster) throw CairnError.invalid('approve your own pull is not allowed', { reason: 'review_own_pull' });
      return ReviewType.approve;
    case 'REQUEST_CHANGES':
      if (review.isPoster) throw CairnError.invalid('reject your own pull is not allowed', { reason: 'review_own_pull' });
      if (!hasBody) throw CairnError.invalid(`review event ${state} requires a body`, { reason: 'review_body_required' });
      return ReviewType.reject;
    case 'COMMENT':
      if (!hasBody && !review.hasComments) {
        throw CairnError.invalid(`review event ${state} requires a body or a comment`, { reason: 'review_body_required' });
      }
      return ReviewType.comment;
    default:
      return ReviewType.pending;
  }
}

/** Gitea's SubmitReview: only an approval may be empty (no body and no line comments). */
export function requireReviewContent(type: ReviewTypeValue, body: string, commentCount: number): void {
  if (type !== ReviewType.approve && commentCount === 0 && body.trim() === '') {
    throw CairnError.invalid('Review content is empty', { reason: 'review_content_empty' });
  }
}
