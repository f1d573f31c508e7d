/** Issue subscriptions (routers/api/v1/repo/issue_subscription.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerIssueSubscriptionRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
