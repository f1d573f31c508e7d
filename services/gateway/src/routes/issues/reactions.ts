/** Reactions on issues and comments (routers/api/v1/repo/issue_reaction.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerReactionRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
