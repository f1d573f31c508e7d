/** LabelServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { LabelServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createLabelService(_context: IssuesContext): AsyncServiceOf<typeof LabelServiceService> {
  return notBuiltYet(LabelServiceService);
}
