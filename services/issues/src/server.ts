/** The issues gRPC server: every issues service on one RpcServer. */
import type { Logger } from '@cairn/log';
import {
  CommentServiceService,
  IssueServiceService,
  IssueSubscriptionServiceService,
  LabelServiceService,
  MilestoneServiceService,
  TimeTrackingServiceService,
} from '@cairn/proto/cairn/issues/v1/issues_service';
import { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { createCommentService } from './rpc/comment-service';
import type { IssuesContext } from './rpc/context';
import { createIssueService } from './rpc/issue-service';
import { createLabelService } from './rpc/label-service';
import { createMilestoneService } from './rpc/milestone-service';
import { createPullService } from './rpc/pull-service';
import { createReviewService } from './rpc/review-service';
import { createSubscriptionService } from './rpc/subscription-service';
import { createTimeTrackingService } from './rpc/time-tracking-service';

export function createIssuesServer(context: IssuesContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'issues', logger });
  server.addService(IssueServiceService, createIssueService(context));
  server.addService(LabelServiceService, createLabelService(context));
  server.addService(MilestoneServiceService, createMilestoneService(context));
  server.addService(CommentServiceService, createCommentService(context));
  server.addService(IssueSubscriptionServiceService, createSubscriptionService(context));
  server.addService(TimeTrackingServiceService, createTimeTrackingService(context));
  server.addService(PullServiceService, createPullService(context));
  server.addService(ReviewServiceService, createReviewService(context));
  return server;
}
