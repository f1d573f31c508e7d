/** Pull requests (routers/api/v1/repo/pull.go): list, create, get, edit, by branches, .diff/.patch, files, commits, merge. */
import type { ApiRegistry } from '../../api/registry';

export function registerPullRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
