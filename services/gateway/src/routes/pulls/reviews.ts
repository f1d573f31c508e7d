/** Pull-request reviews and requested reviewers (routers/api/v1/repo/pull_review.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerReviewRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
