/** IssueServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createIssueService(_context: IssuesContext): AsyncServiceOf<typeof IssueServiceService> {
  return notBuiltYet(IssueServiceService);
}
