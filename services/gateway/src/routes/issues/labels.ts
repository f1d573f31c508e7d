/** Repository labels, organization labels and the labels on an issue (routers/api/v1/repo/label.go, org/label.go, repo/issue_label.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerLabelRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
