/** Issue comments (routers/api/v1/repo/issue_comment.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerCommentRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
