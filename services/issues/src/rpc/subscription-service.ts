/** IssueSubscriptionServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { IssueSubscriptionServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createSubscriptionService(_context: IssuesContext): AsyncServiceOf<typeof IssueSubscriptionServiceService> {
  return notBuiltYet(IssueSubscriptionServiceService);
}
