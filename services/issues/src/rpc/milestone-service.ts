/** MilestoneServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { MilestoneServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createMilestoneService(_context: IssuesContext): AsyncServiceOf<typeof MilestoneServiceService> {
  return notBuiltYet(MilestoneServiceService);
}
