/** Tracked times and stopwatches (routers/api/v1/repo/issue_tracked_time.go, issue_stopwatch.go). */
import type { ApiRegistry } from '../../api/registry';

export function registerTimeTrackingRoutes(_api: ApiRegistry): void {
  // Routes arrive with the area's implementation.
}
