/** Issues of a repository (routers/api/v1/repo/issue.go): list, create, get, edit, delete, lock. */
import type { ApiRegistry } from '../../api/registry';

export function registerIssueRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
