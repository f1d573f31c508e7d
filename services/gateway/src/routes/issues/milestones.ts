/** Milestones (routers/api/v1/repo/milestone.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerMilestoneRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
