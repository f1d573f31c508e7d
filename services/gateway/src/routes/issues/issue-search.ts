/** Issue search across repositories: GET /repos/issues/search (routers/api/v1/repo/issue.go SearchIssues). */
import type { ApiRegistry } from '../../api/registry';

export function registerIssueSearchRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
