/** CommentServiceService (proto/cairn/issues/v1/issues_service.proto). */
import { CommentServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AsyncServiceOf } from '@cairn/rpc';
import type { IssuesContext } from './context';
import { notBuiltYet } from './not-built-yet';

export function createCommentService(_context: IssuesContext): AsyncServiceOf<typeof CommentServiceService> {
  return notBuiltYet(CommentServiceService);
}
