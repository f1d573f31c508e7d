/** TimeTrackingServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { TimeTrackingServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createTimeTrackingService(_context: IssuesContext): AsyncServiceOf<typeof TimeTrackingServiceService> {
  return notBuiltYet(TimeTrackingServiceService);
}
